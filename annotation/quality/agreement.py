"""Pure helpers of the annotator quality table: agreement with the majority of the others, a
share with its count, and the trend of a share over an annotator's work (no Django)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Tally:
    hits: int = 0
    n: int = 0

    @property
    def share(self) -> float | None:
        return self.hits / self.n if self.n else None

    def add(self, hit: bool) -> Tally:
        return Tally(self.hits + int(hit), self.n + 1)


def majority(labels: Sequence[Hashable]) -> Hashable | None:
    """The most frequent label; None when there is none or the top is a tie."""
    counts = Counter(labels).most_common(2)
    if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def majority_hits(
    units: Mapping[Hashable, Mapping[Hashable, Hashable]],
) -> dict[Hashable, list[tuple[Hashable, bool]]]:
    """Per annotator, (unit, agrees) for each unit where the *other* annotators have a
    majority label (leave-one-out: with two annotators it is agreement with the other one;
    units where the others tie are left out)."""
    out: dict[Hashable, list[tuple[Hashable, bool]]] = {}
    for unit, labels in units.items():
        for who, label in labels.items():
            others = majority([v for w, v in labels.items() if w != who])
            if others is not None:
                out.setdefault(who, []).append((unit, label == others))
    return out


def tally(hits: Sequence[bool]) -> Tally:
    return Tally(sum(bool(h) for h in hits), len(hits))


def trend(hits_in_order: Sequence[bool], minimum: int = 4) -> float | None:
    """Share in the second half of the annotator's answers minus the first half (positive:
    improving); None under ``minimum`` answers. An odd middle answer counts in neither."""
    n = len(hits_in_order)
    if n < minimum:
        return None
    half = n // 2
    first, second = hits_in_order[:half], hits_in_order[n - half :]
    return sum(second) / half - sum(first) / half
