"""Nugget scores of one answer, as the TREC 2024 RAG track's AutoNuggetizer defines them.

Per (run, topic), over the topic's nuggets and their assignments to the run's answer:

- ``strict_vital``: share of vital nuggets the answer fully supports;
- ``strict_all``: share of all nuggets it fully supports;
- ``vital``: as ``strict_vital`` with a partial support counted 0.5;
- ``all``: as ``strict_all`` with a partial support counted 0.5.

A topic without vital nuggets scores 0 on both vital scores (and a topic without nuggets 0 on
all four), as the reference scorer does, rather than being left out of the mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

VITAL = "vital"
OKAY = "okay"
IMPORTANCES = (VITAL, OKAY)
SUPPORT = "support"
PARTIAL_SUPPORT = "partial_support"
NOT_SUPPORT = "not_support"
ASSIGNMENTS = (SUPPORT, PARTIAL_SUPPORT, NOT_SUPPORT)
# The credit of each assignment in the non-strict scores.
CREDIT = {SUPPORT: 1.0, PARTIAL_SUPPORT: 0.5, NOT_SUPPORT: 0.0}
SCORE_NAMES = ("strict_vital", "strict_all", "vital", "all")


@dataclass(frozen=True)
class NuggetScores:
    strict_vital: float
    strict_all: float
    vital: float
    all: float

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in SCORE_NAMES}


def _share(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else 0.0


def topic_scores(importances: Sequence[str], assignments: Sequence[str]) -> NuggetScores:
    """The four scores of one answer; ``importances[i]`` and ``assignments[i]`` belong to the
    topic's i-th nugget (an unknown label is a ValueError, not a silent 0)."""
    if len(importances) != len(assignments):
        raise ValueError("one assignment per nugget is needed")
    for label in importances:
        if label not in IMPORTANCES:
            raise ValueError(f"unknown importance {label!r}")
    for label in assignments:
        if label not in CREDIT:
            raise ValueError(f"unknown assignment {label!r}")
    vital = np.array([label == VITAL for label in importances], dtype=bool)
    strict = np.array([label == SUPPORT for label in assignments], dtype=float)
    credit = np.array([CREDIT[label] for label in assignments], dtype=float)
    return NuggetScores(
        strict_vital=_share(strict[vital]),
        strict_all=_share(strict),
        vital=_share(credit[vital]),
        all=_share(credit),
    )


def mean_scores(per_topic: Iterable[NuggetScores]) -> NuggetScores | None:
    """The means over topics (None when there is no topic)."""
    rows = np.array([[getattr(s, name) for name in SCORE_NAMES] for s in per_topic], dtype=float)
    if not rows.size:
        return None
    return NuggetScores(*(float(value) for value in rows.mean(axis=0)))
