"""The review workspace: one disagreement at a time, keyboard first, blind by default.

Isolation as in the annotation workspace: a review campaign the account may not review is 404.
A decision that fails validation comes back with the reviewer's note and choice kept (400), so
nothing typed is lost; a decision stored twice (double submit) is stored once.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views import View

from annotation.models import ReviewCampaign, ReviewItem
from annotation.review.access import can_review, reviewable
from annotation.review.decisions import DecisionError, chosen_label, decide, next_item, progress
from annotation.review.display import options, other_label_hint
from annotation.review.forms import DecisionForm
from annotation.task_types.names import task_label

SAVED = "Decision saved."
ALREADY = "This item had already been decided; the first decision stands."


def review_campaign_for(request: HttpRequest, slug: str, *, decide: bool = False) -> ReviewCampaign:
    """The campaign if the account may review it (404 otherwise); with ``decide``, 403 for a
    viewer of its workspace who was not given it."""
    campaign = get_object_or_404(ReviewCampaign, slug=slug)
    if not can_review(campaign, request):
        raise Http404("no such review campaign")
    if decide and not can_review(campaign, request, decide=True):
        raise PermissionDenied("You may only read this review campaign.")
    return campaign


def _page(
    request: HttpRequest,
    campaign: ReviewCampaign,
    item: ReviewItem | None,
    *,
    form_data: dict | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    hint = other_label_hint(campaign.task_type)
    context = {
        "campaign": campaign,
        "task_label": task_label(campaign.task_type),
        "progress": progress(campaign),
        "item": item,
        "payload": item.payload if item else {},
        "options": options(campaign, item) if item else [],
        "other_hint": hint,
        # Wide enough for the hint (a declared task's labels are words: partial_support).
        "other_size": min(max(4, len(hint)), 40),
        "form_data": form_data or {},
        "error": error,
    }
    return render(request, "annotation/review/workspace.html", context, status=status)


class ReviewHomeView(LoginRequiredMixin, View):
    """The review campaigns an account was given."""

    def get(self, request: HttpRequest) -> HttpResponse:
        rows = [(c, progress(c)) for c in reviewable(request.user)]
        return render(request, "annotation/review/home.html", {"rows": rows})


class ReviewWorkspaceView(LoginRequiredMixin, View):
    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        campaign = review_campaign_for(request, slug)
        item = next_item(campaign) if campaign.is_open else None
        return _page(request, campaign, item)


class ReviewDecideView(LoginRequiredMixin, View):
    def post(self, request: HttpRequest, slug: str, pk: int) -> HttpResponse:
        campaign = review_campaign_for(request, slug, decide=True)
        item = get_object_or_404(ReviewItem, pk=pk, campaign=campaign)
        form = DecisionForm(request.POST)
        kept = {k: request.POST.get(k, "")[:5000] for k in ("option", "other", "note")}
        if not campaign.is_open:
            return _page(request, campaign, item, form_data=kept, error="closed", status=400)
        if not form.is_valid():
            error = "; ".join(e for errs in form.errors.values() for e in errs)
            return _page(request, campaign, item, form_data=kept, error=error, status=400)
        data = form.cleaned_data
        try:
            label, letter = chosen_label(item, data["option"], data["other"])
        except DecisionError as exc:
            return _page(request, campaign, item, form_data=kept, error=str(exc), status=400)
        result = decide(item, request.user, label, letter, data["note"], data["time_spent_ms"])
        messages.success(request, SAVED if result.stored else ALREADY)
        return redirect("review-workspace", slug=campaign.slug)
