"""Machine labels that a method adds to the review queue of a campaign task.

Answer equivalence and failure category are labelled by people in campaigns (annotation) and by
machines in methods (SePer's entailment kernel, LLM-retEval's failure categories); annotation
may not import the methods, so each method declares a ``ReviewLabelSource`` in its
``MethodConfig`` (``review_label_sources``) and the queue's loader
(``annotation/review_labels.py``) asks every source of the task for its labels.

A source is given the queue's items (``{item key: ItemRef}``, the keys the campaign answers
use) and returns the labels its machine judges gave them, ``{item key: {judge name: label}}``,
in the task's label vocabulary (0/1 for answer equivalence, a letter for failure category).
Items no person labelled are not asked about: a review item needs the campaign's item to show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crux_app.registry import Registry

from .review_item_ref import ItemRef
from .review_queue import Label

if TYPE_CHECKING:
    from crux_app.models import Collection

MachineLabels = dict[str, dict[str, Label]]


@dataclass(frozen=True)
class ReviewLabelSource:
    task: str  # an annotation task type (annotation/task_types.py)
    name: str  # unique within the task, e.g. "seper_kernel"
    # (collection, {item key: ItemRef}) -> {item key: {judge: label}}
    load: Callable[[Collection, Mapping[str, ItemRef]], MachineLabels]
    # The kind its judges are listed with (a Judge.Kind value, or a word such as "nli").
    judge_kind: str = "llm"

    @property
    def key(self) -> str:
        return f"{self.task}:{self.name}"


REVIEW_LABEL_SOURCES: Registry[ReviewLabelSource] = Registry(
    "review label source", (ReviewLabelSource,)
)


def sources_for(task: str) -> list[ReviewLabelSource]:
    """The declared sources of a task, in declaration order."""
    return [s for s in REVIEW_LABEL_SOURCES.ordered() if s.task == task]
