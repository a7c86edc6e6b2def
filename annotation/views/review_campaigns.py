"""Researcher pages of review campaigns: the list, making one from a disagreement queue (with
a live count of its items), and a campaign's page (progress, reviewers, decisions)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.views import View

from annotation.labels.collection import UnknownJudges
from annotation.models import ReviewCampaign
from annotation.models.access import visible_or_404
from annotation.review.access import add_reviewer
from annotation.review.campaigns import EmptyQueue, create_review_campaign
from annotation.review.decisions import progress
from annotation.review.display import label_text
from annotation.review.forms import ReviewCampaignForm, ReviewerForm, ReviewQueueForm
from annotation.review.selection import build_queue
from annotation.task_types.names import task_label
from crux_app.roles import ResearcherRequiredMixin


class ReviewCampaignListView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        campaigns = ReviewCampaign.objects.visible_to(request).select_related("collection", "judge")
        rows = [(c, progress(c)) for c in campaigns]
        return render(request, "annotation/review/campaign_list.html", {"rows": rows})


class ReviewCampaignCreateView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        """The form, pre-filled from the query (the agreement page's "Review these
        disagreements" link; the form itself when its collection or task changes)."""
        form = ReviewCampaignForm(initial=_initial(request.GET), who=request)
        return render(request, "annotation/review/campaign_form.html", {"form": form})

    def post(self, request: HttpRequest) -> HttpResponse:
        form = ReviewCampaignForm(request.POST, who=request)
        if form.is_valid():
            try:
                campaign = create_review_campaign(
                    form.cleaned_data["collection"],
                    form.cleaned_data["name"],
                    form.choice(),
                    show_sources=form.cleaned_data["show_sources"],
                    guidelines_md=form.cleaned_data["guidelines_md"],
                    reviewers=[request.user],
                    created_by=request.user,
                )
            except (EmptyQueue, UnknownJudges, ValueError) as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, f"{campaign.items.count()} item(s) to review.")
                return redirect("review-campaign-detail", pk=campaign.pk)
        context = {"form": form}
        return render(request, "annotation/review/campaign_form.html", context, status=400)


def _initial(query: QueryDict) -> dict[str, object]:
    initial: dict[str, object] = {name: query.get(name) for name in query if name != "judges"}
    initial["judges"] = query.getlist("judges")
    return initial


class ReviewQueueCountView(ResearcherRequiredMixin, View):
    """The new review campaign form's live item count (htmx): the queue its current choices
    make, by the service that makes the campaign. A field out of its choices or bounds is a 400
    naming it (shown in the same place)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        template = "annotation/review/_queue_count.html"
        if not request.GET.get("collection"):
            return render(request, template, {})
        form = ReviewQueueForm(request.GET, who=request)
        if not form.is_valid():
            return render(request, template, {"errors": form.errors}, status=400)
        try:
            built = build_queue(form.cleaned_data["collection"], form.choice())
        except (UnknownJudges, ValueError) as exc:
            return render(request, template, {"problem": str(exc)}, status=400)
        return render(request, template, {"built": built})


class ReviewCampaignDetailView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, ReviewCampaign.objects, pk=pk)
        return self._page(request, campaign, ReviewerForm())

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, ReviewCampaign.objects, write=True, pk=pk)
        form = ReviewerForm(request.POST)
        if form.is_valid():
            try:
                user = add_reviewer(campaign, form.cleaned_data["username"])
            except LookupError as exc:
                form.add_error("username", str(exc))
            else:
                messages.success(request, f"{user.get_username()} can now review this campaign.")
                return redirect("review-campaign-detail", pk=campaign.pk)
        return self._page(request, campaign, form, status=400)

    def _page(
        self, request: HttpRequest, campaign: ReviewCampaign, form: ReviewerForm, status=200
    ) -> HttpResponse:
        decisions = campaign.decisions.select_related("item", "reviewer").order_by("-decided_at")
        rows = [(d, label_text(campaign.task_type, d.label)) for d in decisions[:200]]
        context = {
            "campaign": campaign,
            "task_label": task_label(campaign.task_type),
            "progress": progress(campaign),
            "reviewers": campaign.reviewers.order_by("username"),
            "decisions": rows,
            "form": form,
        }
        return render(request, "annotation/review/campaign_detail.html", context, status=status)
