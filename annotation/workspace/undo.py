"""Undo of an annotator's latest submission: the answer goes back to being their draft.

Rules: only the annotator's most recent submitted answer in the campaign can be undone, and
only while the campaign is open; any other submitted answer stays as it is (nothing submitted
is lost). Undo makes the assignment a live reservation again (its first reservation time kept,
so the workspace shows it before the items reserved after it), with the answer as its draft;
the item's label count goes down by one and its reservation count up by one, and the
judgments mirrored from the answer are removed (a label the same person gave the same pair in
another campaign becomes their judgment again).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.labels.post_editing import post_edit_judge_name
from annotation.models import Assignment, Campaign, CampaignItem
from annotation.task_types.answers import answer_to_draft
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from annotation.workspace.submission import mirror_judgments
from crux_app.data_version import bump_topics
from crux_app.models import Judge, Judgment
from crux_app.models.managers import JudgmentQuerySet


class UndoRefused(ValueError):
    """The answer cannot be undone; the message says why, for the annotator."""


def undo(assignment: Assignment, now: datetime | None = None) -> Assignment:
    """Reopen ``assignment`` (the annotator's latest submission) for its annotator."""
    now = now or timezone.now()
    with transaction.atomic():
        campaign = Campaign.objects.get(pk=assignment.campaign_id)
        if not campaign.is_open:
            raise UndoRefused(f"This campaign is {campaign.get_state_display().lower()}.")
        # A submit of another item running now finishes first: its row is locked here, so the
        # "latest" below sees it.
        list(
            Assignment.objects.select_for_update(of=("self",))
            .filter(
                campaign=campaign,
                annotator_id=assignment.annotator_id,
                state=Assignment.State.RESERVED,
            )
            .order_by("id")
            .values_list("pk", flat=True)
        )
        locked = (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("item", "annotator", "campaign")
            .get(pk=assignment.pk)
        )
        if locked.state != Assignment.State.SUBMITTED:
            raise UndoRefused("This answer is not submitted (already undone?).")
        latest = Assignment.objects.latest_submitted(campaign.pk, locked.annotator_id)
        if latest is None or latest.pk != locked.pk:
            raise UndoRefused("Only your latest answer can be undone: a newer one exists.")
        locked.draft = answer_to_draft(campaign.task_type, locked.answer)
        locked.state = Assignment.State.RESERVED
        locked.answer = None
        locked.submitted_at = None
        locked.reserved_until = now + timedelta(seconds=campaign.reservation_seconds)
        locked.kept_suggestion = None  # decided again by the next submit
        locked.save(
            update_fields=[
                "draft",
                "state",
                "answer",
                "submitted_at",
                "reserved_until",
                "kept_suggestion",
            ]
        )
        CampaignItem.objects.filter(pk=locked.item_id).update(
            annotations_done=F("annotations_done") - 1,
            reserved_count=F("reserved_count") + 1,
        )
        unmirror_judgments(locked)
    return locked


def unmirror_judgments(assignment: Assignment) -> int:
    """Remove the judgments ``mirror_judgments`` wrote for this item and annotator; the same
    person's latest other submitted label of the same pair (another campaign) is mirrored
    again. Returns how many judgments were removed."""
    item = assignment.item
    entry = TASK_TYPE_REGISTRY.get(item.kind)
    if item.is_attention_check or item.topic_id is None:
        return 0
    if entry is None or entry.mirrored_judgments is None:  # a task that mirrors no judgments
        return 0
    post_edited = assignment.campaign.is_post_editing
    if post_edited:  # its labels went to the annotator's post-edit judge (submission)
        judges = Judge.objects.filter(
            name=post_edit_judge_name(assignment.annotator.get_username())
        )
    else:
        judges = Judge.objects.filter(user_id=assignment.annotator_id)
    judge = judges.first()
    if judge is None:
        return 0
    mirrored = entry.mirrored_judgments(item, judge)
    if mirrored is None:
        return 0
    rows, same_item = mirrored
    same_pair = Assignment.objects.submitted().filter(
        annotator_id=assignment.annotator_id,
        item__kind=item.kind,
        item__is_attention_check=False,
        # The same judge's labels only: blind and post-edited labels never stand in for each
        # other.
        campaign__suggestion_judge__isnull=not post_edited,
        **same_item,
    )
    # A bulk delete sends no signal: the leaderboard's cache must know. The rows are the
    # item's topic's (judgments, or a method's own rows, which ``bump_rows`` does not know).
    bump_topics({item.topic_id})
    removed, _ = rows.delete()
    earlier = (
        same_pair.exclude(pk=assignment.pk)
        .latest_first()
        .select_related("item", "annotator", "campaign")
    ).first()
    if earlier is not None:
        mirror_judgments(earlier)
    return removed


def rating_judgments(item: CampaignItem, judge: Judge) -> tuple[JudgmentQuerySet, dict] | None:
    """The judge's judgment mirrored from a passage-rating item, and the item fields of the
    same (sub-question, passage)."""
    if not (item.subquestion_id and item.passage_id):
        return None
    rows = Judgment.objects.filter(
        judge=judge, subquestion_id=item.subquestion_id, passage_id=item.passage_id
    )
    return rows, {"item__subquestion_id": item.subquestion_id, "item__passage_id": item.passage_id}


def coverage_judgments(item: CampaignItem, judge: Judge) -> tuple[JudgmentQuerySet, dict] | None:
    """The judge's judgments mirrored from a report-coverage item, and the item field of the
    same report."""
    if not item.output_id:
        return None
    subquestions = [q["subquestion_id"] for q in item.payload.get("questions", [])]
    rows = Judgment.objects.filter(
        judge=judge, output_id=item.output_id, subquestion_id__in=subquestions
    )
    return rows, {"item__output_id": item.output_id}
