"""Several review campaigns' decisions as one adjudicated judge ("merged").

Each review campaign writes its own adjudicated judge as its decisions come in
(``annotation/review/decisions.py``); a lead who reviewed one collection and task in several
campaigns (people's disagreements first, then the judge's) merges their decisions into one
reference judge. The merged judge is rebuilt from the decisions on every merge, so it never
keeps a label a campaign no longer holds; where two campaigns decided the same item differently,
the later decision counts and the conflict is counted. The tasks with a judgments table
(passage rating, report coverage) merge into judgments; a task whose labels live in a method's
own table (nugget assignments) merges through its declared review label source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils.text import slugify

from annotation.labels.sources import ReviewLabelSource, stored_source
from annotation.models import ReviewCampaign, ReviewDecision
from annotation.task_types.registry import TASK_TYPE_REGISTRY, judgment_item, judgment_tasks
from crux_app.data_version import bump_topics
from crux_app.models import Collection, Judge, Judgment


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
    the collection and task) as the labels of one adjudicated judge, replacing its labels."""
    source = stored_source(task_type)
    if not judgment_item(task_type) and not _merges(source):
        raise MergeError(
            f"{task_type} decisions have no judgments table (nor a method's table of labels); "
            f"merge {', '.join(judgment_tasks())} or a task whose method stores its labels"
        )
    campaigns = _campaigns(collection, task_type, slugs)
    if not judgment_item(task_type):
        return _merge_into_source(source, campaigns, name)
    item_field = f"{judgment_item(task_type)}_id"
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
    with transaction.atomic():
        judge = _merged_judge(name)
        # A judge spans collections: only this collection's labels are rebuilt.
        old = judge.judgments.filter(topic__collection=collection)
        old_topics = set(old.values_list("topic_id", flat=True))
        old.delete()
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


def mergeable_tasks() -> list[str]:
    """The task types whose review decisions can be merged, sorted."""
    return sorted(t for t in TASK_TYPE_REGISTRY if judgment_item(t) or _merges(stored_source(t)))


def _merges(source: ReviewLabelSource | None) -> bool:
    return (
        source is not None
        and source.write_adjudicated is not None
        and source.clear_adjudicated is not None
    )


def _merged_judge(name: str) -> Judge:
    judge_name = merged_judge_name(name)
    judge, _ = Judge.objects.get_or_create(
        name=judge_name, defaults={"kind": Judge.Kind.ADJUDICATED}
    )
    if judge.kind != Judge.Kind.ADJUDICATED:
        raise MergeError(f"judge {judge_name} exists and is not an adjudicated judge")
    judge.prompt_version = f"merged review campaigns {name}"[:100]
    judge.save(update_fields=["prompt_version"])
    return judge


def _merge_into_source(
    source: ReviewLabelSource, campaigns: list[ReviewCampaign], name: str
) -> MergeResult:
    """The decisions, one per item key (the later winning), written through the task's source
    into the method's table as the merged judge's labels."""
    decisions = (
        ReviewDecision.objects.filter(campaign__in=campaigns)
        .select_related("item")
        .order_by("decided_at", "pk")
    )
    chosen: dict[str, ReviewDecision] = {}
    conflicts: set[str] = set()
    for decision in decisions:
        earlier = chosen.get(decision.item.key)
        if earlier is not None and earlier.label != decision.label:
            conflicts.add(decision.item.key)
        chosen[decision.item.key] = decision
    with transaction.atomic():
        judge = _merged_judge(name)
        old_topics = source.clear_adjudicated(judge.pk, {c.collection_id for c in campaigns})
        written = sum(
            source.write_adjudicated(judge.pk, d.item, d.label, d.note) for d in chosen.values()
        )
        bump_topics(old_topics)
    return MergeResult(judge, [c.slug for c in campaigns], written, len(conflicts))
