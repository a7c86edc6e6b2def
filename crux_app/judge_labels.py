"""Labels a judge gives outside the shared ``Judgment`` table, declared by the method that
stores them (e.g. the nugget method's assignments and nugget-passage ratings), so the pages that
count a collection's judges (the collection list and page) count those judges too. This module
names no app: a method declares a ``JudgeLabelSource`` in its ``MethodConfig``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from crux_app.models import Collection
from crux_app.registry import Registry


@dataclass(frozen=True)
class JudgeLabelSource:
    key: str
    label: str  # what the labels are, plural: "nugget assignments"
    counts: Callable[[Collection], Mapping[int, int]]  # judge id -> its labels in the collection


_SOURCES: Registry[JudgeLabelSource] = Registry("judge label source", (JudgeLabelSource,))


def label_sources() -> list[JudgeLabelSource]:
    """The declared sources, in declaration order (one query each)."""
    return _SOURCES.ordered()


def declared_labels(collection: Collection) -> dict[int, list[tuple[str, int]]]:
    """judge id -> (what, how many) of each declared kind of label it gave in the collection."""
    out: dict[int, list[tuple[str, int]]] = {}
    for source in label_sources():
        for judge_id, n in sorted(source.counts(collection).items()):
            if n:
                out.setdefault(judge_id, []).append((source.label, n))
    return out
