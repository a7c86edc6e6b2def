"""Machine labels that a method adds to the review queue of a campaign task.

Answer equivalence and failure category are labelled by people in campaigns (annotation) and by
machines in methods (SePer's entailment kernel, LLM-retEval's failure categories); annotation
may not import the methods, so each method declares a ``ReviewLabelSource`` in its
``MethodConfig`` (``review_label_sources``) and the queue's loader
(``annotation/labels/collection.py``) asks every source of the task for its labels.

A source is given the queue's items (``{item key: ItemRef}``, the keys the campaign answers
use) and returns the labels its machine judges gave them, ``{item key: {judge name: label}}``,
in the task's label vocabulary (0/1 for answer equivalence, a letter for failure category).
The items are the campaign answers' and every other answer of the collection
(``annotation/labels/machine_items.py``), so two machine judges disagreeing on an answer no
person labelled make a review item too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from annotation.labels.item_ref import ItemRef, Label
from crux_app.registry import Registry

if TYPE_CHECKING:
    from crux_app.models import Collection

MachineLabels = dict[str, dict[str, Label]]


@dataclass
class StoredLabels:
    """Every label of a task in a collection: ``{item key: {judge: label}}``, what each item
    is, its topic, each judge's kind (a Judge.Kind value) and the rationales given."""

    labels: dict[str, dict[str, Label]]
    refs: dict[str, ItemRef]
    topics: dict[str, str]
    kinds: dict[str, str]
    rationales: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class ReviewLabelSource:
    task: str  # an annotation task type (annotation/task_types/names.py)
    name: str  # unique within the task, e.g. "seper_kernel"
    # (collection, {item key: ItemRef}) -> {item key: {judge: label}}
    load: Callable[[Collection, Mapping[str, ItemRef]], MachineLabels]
    # The kind its judges are listed with (a Judge.Kind value, or a word such as "nli").
    judge_kind: str = "llm"
    # For a task whose every label lives in the method's own table (people's campaign labels
    # mirrored there, machine judges' stored there: nugget assignments): all the collection's
    # labels with their items, in place of campaign answers plus ``load``.
    stored: Callable[[Collection], StoredLabels] | None = None
    # What the reviewer reads of each item (the review item's payload), for such a task.
    payloads: Callable[[Sequence[ItemRef]], dict[ItemRef, dict]] | None = None
    # A reviewer's decision as the label of the review campaign's adjudicated judge in that
    # table: (judge id, review item, label, note) -> whether one was written.
    write_adjudicated: Callable[[int, Any, Label, str], bool] | None = None
    # Remove an adjudicated judge's labels on the given collections from that table before a
    # merge rebuilds them (a judge spans collections; others keep theirs):
    # (judge id, collection ids) -> the topic ids they were on.
    clear_adjudicated: Callable[[int, set[int]], set[int]] | None = None

    @property
    def key(self) -> str:
        return f"{self.task}:{self.name}"


REVIEW_LABEL_SOURCES: Registry[ReviewLabelSource] = Registry(
    "review label source", (ReviewLabelSource,)
)


def sources_for(task: str) -> list[ReviewLabelSource]:
    """The declared sources of a task, in declaration order."""
    return [s for s in REVIEW_LABEL_SOURCES.ordered() if s.task == task]


def stored_source(task: str) -> ReviewLabelSource | None:
    """The task's source that holds all its labels (``stored``), if one is declared."""
    return next((s for s in sources_for(task) if s.stored is not None), None)
