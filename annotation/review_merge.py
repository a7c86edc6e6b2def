"""Several review campaigns' decisions as one adjudicated judge ("merged").

Each review campaign writes its own adjudicated judge as its decisions come in
(``annotation/review_decisions.py``); a lead who reviewed one collection and task in several
campaigns (people's disagreements first, then the judge's) merges their decisions into one
reference judge. The merged judge is rebuilt from the decisions on every merge, so it never
keeps a label a campaign no longer holds; where two campaigns decided the same item differently,
the later decision counts and the conflict is counted. Only the tasks with a judgments table
(passage rating, report coverage) can be merged, like the per-campaign judges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils.text import slugify

from crux_app.data_version import bump_topics
from crux_app.models import Collection, Judge, Judgment

from .models import ReviewCampaign, ReviewDecision
from .task_types import JUDGMENT_TASKS, PASSAGE_RATING


class MergeError(ValueError):
    pass


@dataclass(frozen=True)
class MergeResult:
    judge: Judge
    campaigns: list[str]  # slugs, in name order
    n_labels: int
    n_conflicts: int  # items decided differently by two campaigns (the later decision counts)


def merged_judge_name(name: str) -> str:
    return f"adjudicated:merged:{slugify(name)[:80] or 'reference'}"


def _campaigns(collection: Collection, task_type: str, slugs: Sequence[str]) -> list:
    found = ReviewCampaign.objects.filter(collection=collection, task_type=task_type)
    if slugs:
        found = found.filter(slug__in=slugs)
        missing = sorted(set(slugs) - set(found.values_list("slug", flat=True)))
        if missing:
            raise MergeError(
                f"no review campaign of {task_type} on {collection.name} named {', '.join(missing)}"
            )
    campaigns = list(found.order_by("name"))
    if not campaigns:
        raise MergeError(f"no review campaign of {task_type} on {collection.name}")
    return campaigns


def merge_adjudicated(
    collection: Collection, task_type: str, name: str, slugs: Sequence[str] = ()
) -> MergeResult:
    """Write the decisions of the named review campaigns (default: every review campaign of
    the collection and task) as the judgments of one adjudicated judge, replacing its labels."""
    if task_type not in JUDGMENT_TASKS:
        raise MergeError(
            f"{task_type} decisions have no judgments table; merge passage_rating or "
            "report_coverage"
        )
    campaigns = _campaigns(collection, task_type, slugs)
    item_field = "passage_id" if task_type == PASSAGE_RATING else "output_id"
    decisions = (
        ReviewDecision.objects.filter(campaign__in=campaigns, item__subquestion__isnull=False)
        .exclude(**{f"item__{item_field}": None})
        .select_related("item")
        .order_by("decided_at", "pk")
    )
    chosen: dict[tuple[int, int], ReviewDecision] = {}
    conflicts: set[tuple[int, int]] = set()
    for decision in decisions:
        where = (decision.item.subquestion_id, getattr(decision.item, item_field))
        earlier = chosen.get(where)
        if earlier is not None and earlier.label != decision.label:
            conflicts.add(where)
        chosen[where] = decision
    judge_name = merged_judge_name(name)
    with transaction.atomic():
        judge, _ = Judge.objects.get_or_create(
            name=judge_name, defaults={"kind": Judge.Kind.ADJUDICATED}
        )
        if judge.kind != Judge.Kind.ADJUDICATED:
            raise MergeError(f"judge {judge_name} exists and is not an adjudicated judge")
        judge.prompt_version = f"merged review campaigns {name}"[:100]
        judge.save(update_fields=["prompt_version"])
        old_topics = set(judge.judgments.values_list("topic_id", flat=True))
        judge.judgments.all().delete()
        Judgment.objects.bulk_create(
            Judgment(
                judge=judge,
                topic_id=d.item.topic_id,
                subquestion_id=d.item.subquestion_id,
                task=task_type,
                rating=int(d.label),
                rationale=d.note,
                **{item_field: getattr(d.item, item_field)},
            )
            for d in chosen.values()
        )
        bump_topics(old_topics | {d.item.topic_id for d in chosen.values()})
    return MergeResult(judge, [c.slug for c in campaigns], len(chosen), len(conflicts))
