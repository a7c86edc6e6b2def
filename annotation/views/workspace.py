"""The annotator's workspace: one item at a time, swapped in with htmx, keyboard first.

Isolation: a campaign an account was not invited to, and an assignment that is not the
account's own, are both 404 (never 403, which would confirm they exist). Nothing rendered here
reads judgments or other annotators' assignments: the item's payload snapshot is all it shows,
with, in a post-editing campaign only, the chosen machine judge's label of the item as the
pre-filled suggestion (``annotation/labels/post_editing.py``).
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.context_processors import csrf
from django.template.loader import render_to_string
from django.urls import reverse
from django.views import View

from annotation.crowd import control as crowd_control
from annotation.labels.post_editing import notice, opening_draft
from annotation.models import AnnotatorProfile, Assignment, Campaign
from annotation.quality.progress import annotator_standing
from annotation.queue import queue, reservations
from annotation.review.access import reviewable
from annotation.task_types.answers import AnswerError, answer_summary, answer_to_draft, parse_answer
from annotation.task_types.names import task_label
from annotation.task_types.registry import task_type
from annotation.workspace.drafts import save_draft
from annotation.workspace.forms import SubmitTiming
from annotation.workspace.submission import submit
from annotation.workspace.undo import UndoRefused, undo
from crux_app.vocabulary import FAILURE_TAXONOMY, RUBRIC_LEVELS

DRAFT_FIELDS_SKIPPED = {"csrfmiddlewaretoken", "time_spent_ms"}
DRAFT_VALUE_CHARS = 20_000
MAX_ID = 2**63 - 1  # primary keys are bigint

SAVED = "Answer saved."
# After SAVED in the status line, as a key hint (hidden on touch screens, which have no keys).
UNDO_KEY_HINT = "Press u to undo it."
ALREADY_SAVED = "This answer was saved before."
SKIPPED = "Skipped: the item goes back to the others; it comes back to you only at the end."
ALREADY_SKIPPED = "This item was already given back."
REOPENED = "Your last answer is open again: change it and submit."


class PrefetchQuery(forms.Form):
    after = forms.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        error_messages={"required": "give the id of the item on screen"},
    )


def render_fragment(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    """An htmx fragment, rendered with its context and the CSRF token only.

    The site's context processors feed the page layout (the account's role, messages), which
    a fragment never shows; ``render`` would still run them, and the role check is a query
    on every swap."""
    return HttpResponse(render_to_string(template, {**context, **csrf(request)}))


def _bad_request(text: str) -> HttpResponse:
    return HttpResponse(text, status=400, content_type="text/plain; charset=utf-8")


def _nul_field(data) -> str | None:
    """The first field whose name or value holds a NUL character (text PostgreSQL refuses)."""
    for key, values in data.lists():
        if "\x00" in key or any("\x00" in value for value in values):
            return key.replace("\x00", "\\x00")
    return None


def campaign_for(request: HttpRequest, slug: str) -> Campaign:
    """The campaign, if the account was invited to it (one query: the lookup is the check)."""
    if not request.user.is_authenticated:
        raise Http404("No such campaign")
    return get_object_or_404(Campaign.objects.for_annotator(request.user), slug=slug)


def assignment_for(request: HttpRequest, campaign: Campaign, pk: int) -> Assignment:
    return get_object_or_404(
        Assignment.objects.select_related("item"),
        pk=pk,
        campaign=campaign,
        annotator=request.user,
    )


def progress_context(campaign: Campaign, user: Any, n_done: int | None = None) -> dict[str, Any]:
    """The annotator's progress bar: ordinary items submitted (counted unless given) of the
    target (their cap, else the campaign's items)."""
    if n_done is None:
        n_done = (
            Assignment.objects.submitted()
            .filter(campaign=campaign, annotator=user, item__is_control=False)
            .count()
        )
    target = campaign.per_annotator_cap or campaign.selection.get("items")
    if not target:
        target = campaign.items.regular().count()
    return {"n_done": n_done, "target": target, "percent": min(100, int(100 * n_done / target))}


def standing_context(campaign: Campaign, user: Any, *, can_undo: bool = True) -> dict[str, Any]:
    """The progress bar, the link to the annotator's previous item (their latest submission)
    and whether the undo button shows (not right after an undo: one step, until the next
    submission), from one query."""
    n_done, latest = annotator_standing(campaign, user)
    previous = Assignment(pk=latest, campaign=campaign) if latest is not None else None
    return {
        **progress_context(campaign, user, n_done),
        "previous": previous,
        "can_undo": can_undo and previous is not None and campaign.is_open,
    }


def _question_rows(payload: dict[str, Any], draft: dict[str, str]) -> list[dict[str, Any]]:
    """Report coverage: each sub-question with its drafted answer and span."""
    rows = []
    for question in payload.get("questions", []):
        pos = question["position"]
        rows.append(
            {
                "position": pos,
                "text": question["text"],
                "answer": draft.get(f"answer_{pos}", ""),
                "span": draft.get(f"span_{pos}", ""),
                "span_start": draft.get(f"span_start_{pos}", ""),
                "span_end": draft.get(f"span_end_{pos}", ""),
            }
        )
    return rows


def item_context(
    campaign: Campaign, assignment: Assignment, draft: dict[str, str] | None = None
) -> dict[str, Any]:
    """The item with ``draft`` (default: the assignment's own draft, else a post-editing
    campaign's suggestion) filled in."""
    item = assignment.item
    if draft is None:
        draft = opening_draft(campaign, assignment)
    entry = task_type(campaign.task_type)
    return {
        "rows": _question_rows(item.payload, draft),
        "campaign": campaign,
        "assignment": assignment,
        "task": campaign.task_type,
        "payload": item.payload,
        "draft": draft,
        "rubric": RUBRIC_LEVELS,  # (rating, text), 5 first: the judge's prompt reads the same
        "categories": FAILURE_TAXONOMY,
        "task_template": entry.template,
        # Post-editing: whether this item opened with the judge's label (else it opens empty).
        "post_editing": campaign.is_post_editing,
        "suggestion_shown": assignment.suggestion is not None,
        "answer_keys": entry.answer_keys,
        "task_keys": entry.keys,
        "key_values_json": json.dumps(dict(entry.keys.values)),
        "item_data": entry.item_data(item.payload),
        "prefetch_url": reverse("annotation-prefetch", args=[campaign.slug])
        + f"?after={assignment.pk}",
    }


def done_context(campaign: Campaign, user: Any, result: queue.NextItem) -> dict[str, Any]:
    profile = AnnotatorProfile.objects.filter(user=user).first()
    prolific = profile is not None and profile.source == AnnotatorProfile.Source.PROLIFIC
    # A stopped annotator (a failed qualification test, a skill under the floor) did the
    # work asked of them: on Prolific they go to the completion (paid) path too.
    completed = result.reason in (queue.EXHAUSTED, queue.CAP_REACHED, queue.STOPPED)
    stop = crowd_control.stopped(campaign, user) if result.reason == queue.STOPPED else None
    return {
        "campaign": campaign,
        "reason": result.reason,
        "stop_reason": stop.reason if stop else "",
        "completed": completed,
        "completion_code": (campaign.prolific_completion_code if prolific and completed else ""),
        "redirect_url": campaign.prolific_redirect_url if prolific and completed else "",
    }


def render_slot(
    request: HttpRequest, campaign: Campaign, result: queue.NextItem, *, page: bool = False
) -> HttpResponse:
    """The item (or the reason there is none), as the whole page or as the swapped fragment."""
    if result.assignment is not None:
        context = item_context(campaign, result.assignment)
        template = "annotation/_item.html"
    else:
        context = done_context(campaign, request.user, result)
        template = "annotation/_done.html"
    if page:
        context.update(
            **standing_context(campaign, request.user),
            slot_template=template,
            task_label=task_label(campaign.task_type),
            post_edit_notice=notice(campaign),
        )
        return render(request, "annotation/workspace.html", context)
    return render_fragment(request, template, context)


def review_context(campaign: Campaign, assignment: Assignment, user: Any) -> dict[str, Any]:
    """A submitted item shown read-only with its answer, and whether it can still change."""
    latest = Assignment.objects.latest_submitted(campaign.pk, user.pk)
    earlier = (
        Assignment.objects.submitted()
        .filter(campaign=campaign, annotator=user, submitted_at__lt=assignment.submitted_at)
        .latest_first()
        .first()
    )
    answer = answer_to_draft(campaign.task_type, assignment.answer)
    return {
        **item_context(campaign, assignment, answer),
        "review": True,
        "summary": answer_summary(campaign.task_type, assignment.answer),
        "submitted_at": assignment.submitted_at,
        "can_change": campaign.is_open and latest is not None and latest.pk == assignment.pk,
        "previous": earlier,
        "task_label": task_label(campaign.task_type),
        "post_edit_notice": notice(campaign),
    }


class AnnotatorHomeView(LoginRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        campaigns = Campaign.objects.for_annotator(request.user).exclude(
            state=Campaign.State.CLOSED
        )
        rows = [(c, progress_context(c, request.user)) for c in campaigns]
        n_reviews = reviewable(request.user).count()
        return render(request, "annotation/home.html", {"rows": rows, "n_reviews": n_reviews})


class WorkspaceView(LoginRequiredMixin, View):
    """The workspace page: resumes the annotator's live item, or reserves the next one."""

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        campaign = campaign_for(request, slug)
        return render_slot(request, campaign, queue.next_item(campaign, request.user), page=True)


class ItemView(LoginRequiredMixin, View):
    """A direct link to one of the annotator's own items: a reserved one to work on, a
    submitted one to look at again (the workspace's "previous item" link)."""

    def get(self, request: HttpRequest, slug: str, pk: int) -> HttpResponse:
        campaign = campaign_for(request, slug)
        assignment = assignment_for(request, campaign, pk)
        if assignment.state == Assignment.State.SUBMITTED:
            context = review_context(campaign, assignment, request.user)
            return render(request, "annotation/review.html", context)
        if assignment.state != Assignment.State.RESERVED:
            return redirect("annotation-workspace", slug=campaign.slug)
        return render_slot(request, campaign, queue.NextItem(assignment, queue.ITEM), page=True)


class NextItemView(LoginRequiredMixin, View):
    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        campaign = campaign_for(request, slug)
        if not request.htmx:
            return redirect("annotation-workspace", slug=campaign.slug)
        return render_slot(request, campaign, queue.next_item(campaign, request.user))


class PrefetchView(LoginRequiredMixin, View):
    """The item after the one on screen, reserved in the background; 204 when there is none."""

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        campaign = campaign_for(request, slug)
        query = PrefetchQuery(request.GET)
        if not query.is_valid():
            return _bad_request(query.errors.as_text())
        result = queue.next_item(campaign, request.user, after=query.cleaned_data["after"])
        if result.assignment is None:
            return HttpResponse(status=204)
        return render_fragment(
            request, "annotation/_item.html", item_context(campaign, result.assignment)
        )


def _done_response(
    request: HttpRequest, campaign: Campaign, status: str, key_hint: str = ""
) -> HttpResponse:
    """After a submit or skip: for htmx, out-of-band swaps of the progress bar, the previous
    item link and the status line (with ``key_hint``); else the workspace page again, with the
    status."""
    if not request.htmx:
        messages.info(request, status)
        return redirect("annotation-workspace", slug=campaign.slug)
    context = {
        **standing_context(campaign, request.user),
        "campaign": campaign,
        "status": status,
        "status_key_hint": key_hint,
        "oob": True,
    }
    return render_fragment(request, "annotation/_after_action.html", context)


class SubmitView(LoginRequiredMixin, View):
    def post(self, request: HttpRequest, slug: str, pk: int) -> HttpResponse:
        campaign = campaign_for(request, slug)
        assignment = assignment_for(request, campaign, pk)
        refused = _nul_field(request.POST)
        if refused is not None:
            return _bad_request(f"{refused}: holds a NUL character")
        timing = SubmitTiming(request.POST)
        if not timing.is_valid():
            return _bad_request(timing.errors.as_text())
        try:
            answer = parse_answer(campaign.task_type, request.POST, assignment.item.payload)
        except AnswerError as error:
            return HttpResponse(str(error), status=400, content_type="text/plain")
        result = submit(assignment, answer, timing.cleaned_data["time_spent_ms"])
        if result.stored:
            return _done_response(request, campaign, SAVED, UNDO_KEY_HINT)
        return _done_response(request, campaign, ALREADY_SAVED)


class SkipView(LoginRequiredMixin, View):
    def post(self, request: HttpRequest, slug: str, pk: int) -> HttpResponse:
        campaign = campaign_for(request, slug)
        skipped = reservations.skip(assignment_for(request, campaign, pk))
        return _done_response(request, campaign, SKIPPED if skipped else ALREADY_SKIPPED)


class UndoView(LoginRequiredMixin, View):
    """Reopen the annotator's latest submitted answer (key ``u`` in the workspace). For htmx:
    the reopened item with its answer filled in; a refusal is a 409 saying why."""

    def post(self, request: HttpRequest, slug: str, pk: int) -> HttpResponse:
        campaign = campaign_for(request, slug)
        assignment = assignment_for(request, campaign, pk)
        try:
            reopened = undo(assignment)
        except UndoRefused as error:
            if request.htmx:
                return HttpResponse(str(error), status=409, content_type="text/plain")
            messages.error(request, str(error))
            return redirect("annotation-item", slug=campaign.slug, pk=assignment.pk)
        if not request.htmx:
            messages.info(request, REOPENED)
            return redirect("annotation-item", slug=campaign.slug, pk=reopened.pk)
        context = {
            **item_context(campaign, reopened),
            **standing_context(campaign, request.user, can_undo=False),
            "status": REOPENED,
            "oob": True,
        }
        return render_fragment(request, "annotation/_reopened.html", context)


class DraftView(LoginRequiredMixin, View):
    """Keep the unfinished answer (and extend the reservation) while the annotator works."""

    def post(self, request: HttpRequest, slug: str, pk: int) -> HttpResponse:
        campaign = campaign_for(request, slug)
        assignment = assignment_for(request, campaign, pk)
        refused = _nul_field(request.POST)
        if refused is not None:
            return _bad_request(f"{refused}: holds a NUL character")
        draft = {
            k: v[:DRAFT_VALUE_CHARS]
            for k, v in request.POST.items()
            if k not in DRAFT_FIELDS_SKIPPED
        }
        # 204 either way: a draft that arrives after its item was submitted is simply dropped.
        save_draft(assignment, draft)
        return HttpResponse(status=204)
