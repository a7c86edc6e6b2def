"""Crowd control of a campaign's queue: the until-confident mode's item confidence, the
qualification test before a campaign's items, and the skill floor.

- Until confident: each item keeps the confidence of its aggregated label (the share of its
  labels that agree with the majority label, the least over its units: report coverage's
  sub-questions); the queue (``annotation/queue/queue.py``) closes an item with ``overlap`` labels
  once that reaches the campaign's target, and offers the uncertain ones first, up to the
  cap of labels per item.
- Qualification: with ``qualification_items`` N, an annotator's first items are N gold items;
  below ``qualification_min_accuracy`` on them they are stopped (``WorkerStop``) and see the end
  page (on Prolific: the completion link, so the test is paid), never the campaign's items.
- Skill floor: after ``skill_floor_min_labels`` labels, an annotator whose estimated skill
  (Wawa on the campaign's labels: fast enough for every queue request that needs it) is under
  the floor is stopped from taking new items, with the reason kept for the researcher.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from annotation.crowd.aggregation import AggregationError, aggregate
from annotation.crowd.workers import campaign_units
from annotation.models import Assignment, Campaign, CampaignItem, WorkerStop
from annotation.quality.annotators import answer_units
from annotation.quality.checks import annotator_quality

SKILL_MODEL = "wawa"


def vote_confidence(labels: Sequence[Hashable]) -> float | None:
    """The share of ``labels`` that agree with the most frequent one (None: no labels)."""
    if not labels:
        return None
    return Counter(labels).most_common(1)[0][1] / len(labels)


def item_confidence(item: CampaignItem) -> float | None:
    """The confidence of the item's aggregated label: the least over its units."""
    rows = Assignment.objects.submitted().filter(item=item).values_list("answer", flat=True)
    per_unit: dict[Hashable, list[Hashable]] = {}
    for answer in rows:
        for unit, (label, _) in answer_units(item.kind, item.payload or {}, answer or {}).items():
            per_unit.setdefault(unit, []).append(label)
    shares = [vote_confidence(labels) for labels in per_unit.values()]
    return min((s for s in shares if s is not None), default=None)


def update_confidence(assignment: Assignment) -> None:
    """Keep the item's confidence after a submit (in the submit's transaction)."""
    item = assignment.item
    if item.is_control or not assignment.campaign.until_confident:
        return
    CampaignItem.objects.filter(pk=item.pk).update(confidence=item_confidence(item))


def uncertain_items(campaign: Campaign, items: Any) -> Any:
    """Of ``items``, those with ``overlap`` labels whose confidence is under the target and
    that have labels left under the cap, least confident first (the queue's first pool)."""
    return items.filter(
        is_control=False,
        annotations_done__gte=campaign.overlap,
        load__lt=campaign.max_labels_per_item,
        confidence__lt=campaign.confidence_target,
    ).order_by("confidence", "load", "id")


def item_limit(item: CampaignItem, campaign: Campaign) -> int:
    """Labels (with reservations) the item may take: the overlap, or until confident the cap
    while its confidence is under the target."""
    uncertain = (
        campaign.until_confident
        and item.annotations_done >= campaign.overlap
        and item.confidence is not None
        and item.confidence < campaign.confidence_target
    )
    return campaign.max_labels_per_item if uncertain else campaign.overlap


def stopped(campaign: Campaign, user: AbstractBaseUser) -> WorkerStop | None:
    """The annotator's stop in this campaign (no query when it has no test nor floor: the
    queue's hot path stays as it was)."""
    if not campaign.qualification_items and campaign.skill_floor is None:
        return None
    return WorkerStop.objects.filter(campaign=campaign, annotator=user).first()


def _stop(campaign: Campaign, user: AbstractBaseUser, reason: str, detail: str) -> WorkerStop:
    stop, _ = WorkerStop.objects.get_or_create(
        campaign=campaign, annotator=user, defaults={"reason": reason, "detail": detail[:300]}
    )
    return stop


def qualification_size(campaign: Campaign) -> int:
    """Gold items of the test: the campaign's setting, at most the gold items it has."""
    if not campaign.qualification_items:
        return 0
    gold = CampaignItem.objects.filter(campaign=campaign, is_gold=True).count()
    return min(campaign.qualification_items, gold)


def qualification_pending(campaign: Campaign, user: AbstractBaseUser) -> bool:
    """The annotator still has qualification gold items to answer."""
    size = qualification_size(campaign)
    return bool(size) and annotator_quality(campaign, user).gold_n < size


def check_qualification(campaign: Campaign, user: AbstractBaseUser) -> WorkerStop | None:
    """Stop the annotator when their qualification test is done and under the threshold."""
    size = qualification_size(campaign)
    if not size:
        return None
    status = annotator_quality(campaign, user)
    if status.gold_n < size:
        return None
    accuracy = status.gold_accuracy or 0.0
    if accuracy >= campaign.qualification_min_accuracy:
        return None
    return _stop(
        campaign,
        user,
        WorkerStop.Reason.QUALIFICATION,
        f"qualification test: {accuracy:.0%} on {status.gold_n} gold items, under "
        f"{campaign.qualification_min_accuracy:.0%}",
    )


def check_skill_floor(campaign: Campaign, user: AbstractBaseUser) -> WorkerStop | None:
    """Stop the annotator when their estimated skill is under the campaign's floor."""
    if campaign.skill_floor is None:
        return None
    done = Assignment.objects.submitted().filter(
        campaign=campaign, annotator=user, item__is_control=False
    )
    if done.count() < campaign.skill_floor_min_labels:
        return None
    try:
        model = aggregate(campaign_units(campaign), SKILL_MODEL)
    except AggregationError:
        return None
    worker = model.workers.get(user.get_username())
    if worker is None or worker.skill >= campaign.skill_floor:
        return None
    return _stop(
        campaign,
        user,
        WorkerStop.Reason.SKILL_FLOOR,
        f"estimated skill {worker.skill:.2f} ({SKILL_MODEL}, {worker.n_labels} labels) under "
        f"the floor {campaign.skill_floor:.2f}",
    )
