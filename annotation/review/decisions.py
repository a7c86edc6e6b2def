"""Storing a reviewer's decision, once, and writing it as the adjudicated judge's judgment.

The same guarantees as an annotation submit (``annotation/workspace/submission.py``): the item
row is locked, a decision already stored is never overwritten (a double submit, a second reviewer on
the same item: ``stored`` False), and the adjudicated judgment is written in the same
transaction, so a decision and its judgment exist together or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotation.labels.item_ref import Label
from annotation.labels.sources import stored_source
from annotation.models import ReviewCampaign, ReviewDecision, ReviewItem
from annotation.review.campaigns import OPTION_LETTERS
from annotation.task_types.registry import TASK_TYPE_REGISTRY, judgment_item
from annotation.workspace.submission import MAX_TIME_MS
from crux_app.data_version import bump_topics
from crux_app.models import Judgment

NOTE_CHARS = 5000


class DecisionError(ValueError):
    pass


@dataclass(frozen=True)
class DecisionResult:
    decision: ReviewDecision
    stored: bool  # False when the item had been decided before


def parse_label(task_type: str, text: str) -> Label:
    """A label typed by the reviewer (not one of the candidates), checked against the task's
    declared labels (``TaskType.review_labels``)."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    label = entry.typed_label(text or "") if entry else None
    if label is not None:
        return label
    allowed = (entry.labels_hint() if entry else "") or "a label of the task"
    raise DecisionError(f"the label must be {allowed}")


def chosen_label(item: ReviewItem, option: str, other: str) -> tuple[Label, str]:
    """(label, option letter): a candidate's letter, or a label typed in ("" as letter)."""
    if option:
        index = OPTION_LETTERS.find(option.upper())
        if index < 0 or index >= len(item.candidates):
            raise DecisionError(f"option {option!r} is not one of this item's options")
        return item.candidates[index]["label"], OPTION_LETTERS[index]
    if other:
        return parse_label(item.campaign.task_type, other), ""
    raise DecisionError("choose one of the options or type another label")


def decide(
    item: ReviewItem,
    reviewer: AbstractBaseUser,
    label: Label,
    option: str = "",
    note: str = "",
    time_spent_ms: int | None = None,
    now: datetime | None = None,
) -> DecisionResult:
    now = now or timezone.now()
    with transaction.atomic():
        locked = ReviewItem.objects.select_for_update().select_related("campaign").get(pk=item.pk)
        existing = ReviewDecision.objects.filter(item=locked).first()
        if existing is not None:
            return DecisionResult(existing, stored=False)
        decision = ReviewDecision.objects.create(
            item=locked,
            campaign=locked.campaign,
            reviewer=reviewer,
            label=label,
            option=option,
            note=note[:NOTE_CHARS],
            time_spent_ms=None if time_spent_ms is None else min(time_spent_ms, MAX_TIME_MS),
            decided_at=now,
        )
        write_adjudicated_judgment(locked.campaign, locked, label, note)
    return DecisionResult(decision, stored=True)


def write_adjudicated_judgment(
    campaign: ReviewCampaign, item: ReviewItem, label: Label, note: str
) -> bool:
    """The decision as a judgment of the campaign's adjudicated judge (tasks 1 and 2; the other
    tasks have no judgments table and keep the decision only). Returns whether one was
    written. A task whose labels a method stores is written there by the method's source
    (``ReviewLabelSource.write_adjudicated``: nugget assignments)."""
    source = stored_source(campaign.task_type)
    if campaign.judge_id is not None and source and source.write_adjudicated is not None:
        return source.write_adjudicated(campaign.judge_id, item, label, note)
    if campaign.judge_id is None or item.subquestion_id is None:
        return False
    item_field = judgment_item(campaign.task_type)
    item_id = getattr(item, f"{item_field}_id") if item_field else None
    if not item_id:
        return False
    where = {f"{item_field}_id": item_id}
    Judgment.objects.update_or_create(
        judge_id=campaign.judge_id,
        subquestion_id=item.subquestion_id,
        **where,
        defaults={
            "topic_id": item.topic_id,
            "task": campaign.task_type,
            "rating": int(label),
            "rationale": note,
        },
    )
    bump_topics({item.topic_id})
    return True


def next_item(campaign: ReviewCampaign) -> ReviewItem | None:
    """The first item nobody has decided yet."""
    return campaign.items.filter(decision__isnull=True).order_by("position", "id").first()


def progress(campaign: ReviewCampaign) -> dict[str, int]:
    total = campaign.items.count()
    done = campaign.decisions.count()
    return {"total": total, "done": done, "percent": round(100 * done / total) if total else 100}
