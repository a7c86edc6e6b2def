"""One set of queue choices (task, judges, kind, topics, gap, sample) applied to a collection's
stored labels: what the command prints and what a review campaign is made from."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from annotation.labels.collection import LabelSet, check_judges, collection_labels
from annotation.models.review import ANY
from annotation.review.queue import QueueItem, disagreement_queue, sample_queue
from annotation.task_types.names import DEFAULT_TASK_TYPE
from crux_app.models import Collection


@dataclass(frozen=True)
class QueueChoice:
    task_type: str = DEFAULT_TASK_TYPE
    judges: tuple[str, ...] = ()  # empty: every human judge of the collection (kind any)
    kind: str = ANY
    topics: tuple[str, ...] = ()
    min_gap: float = 0.0
    sample: int | None = None
    sampling: str = "all"
    seed: int = 0

    def as_record(self) -> dict:
        return {**asdict(self), "judges": list(self.judges), "topics": list(self.topics)}


@dataclass(frozen=True)
class BuiltQueue:
    items: list[QueueItem]
    labels: LabelSet
    judges: tuple[str, ...]  # the judges whose labels were compared
    n_disagreements: int  # before sampling


def chosen_judges(labels: LabelSet, choice: QueueChoice) -> tuple[str, ...]:
    """The judges named, or every person when none is; with a kind that needs machines and no
    names, every judge (people and machines)."""
    if choice.judges:
        check_judges(labels, list(choice.judges))
        return choice.judges
    if choice.kind == ANY or choice.kind == "annotators":
        return tuple(labels.human_judges())
    # Adjudicated references are answers, not candidates, post-edited labels are not blind, and
    # aggregated labels are made of the candidates' own: all left out unless named.
    derived = ("adjudicated", "post_edited", "aggregated")
    return tuple(sorted(j for j, k in labels.kinds.items() if k not in derived))


def build_queue(collection: Collection, choice: QueueChoice) -> BuiltQueue:
    labels = collection_labels(collection, choice.task_type)
    judges = chosen_judges(labels, choice)
    items = disagreement_queue(
        labels.labels,
        judges=judges,
        kind=choice.kind,
        machines=labels.machines,
        topics=labels.topics,
        topic_filter=choice.topics or None,
        min_gap=choice.min_gap,
    )
    items = [
        QueueItem(i.key, i.labels, i.topic, i.gap, i.inclusion, labels.refs[i.key]) for i in items
    ]
    sampled = sample_queue(items, choice.sampling, choice.sample, choice.seed)
    return BuiltQueue(sampled, labels, judges, len(items))
