"""Stored labels of one collection and task type as ``{item key: {judge: label}}``, for the
disagreement queue (``annotation/review/queue.py``).

Passage rating and report coverage come from the shared judgments (people's campaign labels are
mirrored there, machine judges write there); answer equivalence and failure category come from
campaign answers (``user:<name>`` per annotator) and from the machine judges of the methods that
declare a ``ReviewLabelSource`` for the task (``annotation/labels/sources.py``), also on
answers no person labelled (``annotation/labels/machine_items.py``). Item keys
are readable and stable: ``<topic>/<sub-question position>/<passage or output id>`` for tasks 1
and 2, ``<topic>/<output id>`` for tasks 3 and 4. A declared task whose labels a method keeps in
its own table (nugget assignments) comes whole from that method's source (``stored``), keyed
as the method chooses.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef

from annotation.labels.item_ref import ItemRef, Label
from annotation.labels.machine_items import answer_items
from annotation.labels.sources import StoredLabels, sources_for, stored_source
from annotation.models import AggregatedLabel, Assignment
from annotation.task_types.names import DEFAULT_TASK_TYPE
from annotation.task_types.registry import TASK_TYPE_REGISTRY, judgment_item
from crux_app.models import Collection, Judge, Judgment

HUMAN = Judge.Kind.HUMAN.value
# People who saw a machine's suggestion: people (never a machine side), but not blind, so left
# out of the default "every person" set unless named.
PEOPLE = frozenset({HUMAN, Judge.Kind.POST_EDITED.value})


@dataclass
class LabelSet:
    task_type: str
    labels: dict[str, dict[str, Label]] = field(default_factory=lambda: defaultdict(dict))
    rationales: dict[str, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    topics: dict[str, str] = field(default_factory=dict)
    refs: dict[str, ItemRef] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # judge name -> Judge.Kind value

    @property
    def machines(self) -> frozenset[str]:
        return frozenset(j for j, k in self.kinds.items() if k not in PEOPLE)

    def human_judges(self) -> list[str]:
        return sorted(j for j, k in self.kinds.items() if k == HUMAN)


class UnknownJudges(ValueError):
    pass


def collection_labels(collection: Collection, task_type: str = DEFAULT_TASK_TYPE) -> LabelSet:
    """Every stored label of ``task_type`` in the collection (unparsed machine output left
    out: it is no label)."""
    if task_type not in TASK_TYPE_REGISTRY:
        known = ", ".join(TASK_TYPE_REGISTRY)
        raise ValueError(f"unknown task {task_type!r}; choose from {known}")
    item_field = judgment_item(task_type)
    if item_field:
        return _judgment_labels(collection, task_type, item_field)
    source = stored_source(task_type)
    if source is not None:
        return _stored_labels(task_type, source.stored(collection))
    found = _with_machine_labels(collection, _answer_labels(collection, task_type))
    return _with_aggregated_labels(collection, found)


def _stored_labels(task_type: str, stored: StoredLabels) -> LabelSet:
    """A method's table of every label of the task (``ReviewLabelSource.stored``)."""
    out = LabelSet(task_type, topics=stored.topics, refs=stored.refs, kinds=stored.kinds)
    for key, by_judge in stored.labels.items():
        out.labels[key].update(by_judge)
    for key, by_judge in stored.rationales.items():
        out.rationales[key].update(by_judge)
    return out


def check_judges(found: LabelSet, names: list[str]) -> None:
    """UnknownJudges naming the judges that gave no label of the task in the collection."""
    missing = [n for n in names if n not in found.kinds]
    if missing:
        known = ", ".join(sorted(found.kinds)) or "none"
        raise UnknownJudges(
            f"no labels of {found.task_type} by {', '.join(missing)} in this collection; "
            f"judges with labels: {known}"
        )


def _judgment_labels(collection: Collection, task_type: str, item_field: str) -> LabelSet:
    """The task's judgments of (sub-question, ``item_field``) pairs (``TaskType.judgment_item``)."""
    out = LabelSet(task_type)
    rows = (
        Judgment.objects.filter(topic__collection=collection, task=task_type, rating__isnull=False)
        .order_by()
        .values_list(
            "judge__name",
            "judge__kind",
            "topic_id",
            "topic__external_id",
            "subquestion_id",
            "subquestion__position",
            f"{item_field}_id",
            f"{item_field}__external_id",
            "rating",
            "rationale",
        )
    )
    for judge, kind, topic_id, topic, sq_id, position, item_id, item_ext, rating, why in rows:
        key = f"{topic}/{position}/{item_ext}"
        out.kinds[judge] = kind
        out.labels[key][judge] = int(rating)
        if why:
            out.rationales[key][judge] = why
        out.topics[key] = topic
        out.refs[key] = ItemRef(topic_id, sq_id, **{f"{item_field}_id": item_id})
    return out


def _answer_labels(collection: Collection, task_type: str) -> LabelSet:
    out = LabelSet(task_type)
    rows = Assignment.objects.labels(task_type).filter(campaign__collection=collection)
    outputs = dict(
        collection.outputs.filter(
            Exists(Assignment.objects.filter(item__output_id=OuterRef("pk")))
        ).values_list("pk", "external_id")
    )
    topics = dict(collection.topics.values_list("pk", "external_id"))
    label_of = TASK_TYPE_REGISTRY[task_type].answer_label
    for row in rows.filter(item__is_gold=False):
        answer = row["answer"] or {}
        label: Label | None = label_of(answer) if label_of else None
        if label is None:
            continue
        topic = topics.get(row["topic_id"], "")
        key = f"{topic}/{outputs.get(row['output_id'], row['output_id'])}"
        judge = f"user:{row['annotator_name']}"
        out.kinds[judge] = HUMAN
        out.labels[key][judge] = label
        if answer.get("rationale"):
            out.rationales[key][judge] = str(answer["rationale"])
        out.topics[key] = topic
        out.refs[key] = ItemRef(
            row["topic_id"],
            output_id=row["output_id"],
            reference_output_id=row["reference_output_id"],
        )
    return out


def _with_machine_labels(collection: Collection, found: LabelSet) -> LabelSet:
    """Add the labels of the task's declared machine sources, on the campaign answers' items
    and on the collection's answers no person labelled (made from its rows)."""
    sources = sources_for(found.task_type)
    if not sources:
        return found
    unlabelled = answer_items(collection, found.task_type)
    items = {**unlabelled.refs, **found.refs}
    for source in sources:
        for key, by_judge in source.load(collection, items).items():
            if key not in items:
                continue  # not an item of the collection: nothing to show a reviewer
            if key not in found.refs:
                found.refs[key] = items[key]
                found.topics[key] = unlabelled.topics[key]
            for judge, label in by_judge.items():
                found.kinds[judge] = source.judge_kind
                found.labels[key][judge] = label
    return found


def _with_aggregated_labels(collection: Collection, found: LabelSet) -> LabelSet:
    """Add the aggregated judges' labels of a task kept in no other table (answer
    equivalence, failure category: ``annotation/crowd/label_aggregation.py``)."""
    rows = AggregatedLabel.objects.filter(
        run__collection=collection, run__task_type=found.task_type
    ).select_related("run__judge", "topic")
    for row in rows:
        judge = row.run.judge.name
        found.kinds[judge] = Judge.Kind.AGGREGATED.value
        found.labels[row.key][judge] = row.label
        if row.key not in found.refs:
            found.topics[row.key] = row.topic.external_id
            found.refs[row.key] = ItemRef(
                row.topic_id,
                output_id=row.output_id,
                reference_output_id=row.reference_output_id,
            )
    return found
