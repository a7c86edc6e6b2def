"""Rating distributions on the coverage matrix: the expected rating of each cell of the shown
judge (when it judged in distribution mode), and one judgment's distribution for the cell panel.
The figures are ``evaluation.crux.method.rating_distribution``'s."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crux_app.models import Judgment
from evaluation.crux.matrix.matrix import TopicMatrix
from evaluation.crux.matrix.stored import HAS_DISTRIBUTION, JUDGE, PASSAGE_RATING
from evaluation.crux.method.rating_distribution import (
    RATINGS,
    expected_rating,
    normalised_entropy,
    stored_distribution,
)


@dataclass(frozen=True)
class RatingDistribution:
    """P(rating 0..5) of one judgment, its expected rating and normalised entropy."""

    probabilities: tuple[float, ...]
    expected: float
    entropy: float

    @property
    def rows(self) -> list[tuple[int, float]]:
        return list(zip(RATINGS, self.probabilities, strict=True))


def rating_distribution(judgment: Judgment) -> RatingDistribution | None:
    p = stored_distribution(judgment.distribution)
    if p is None:
        return None
    expected = float(expected_rating(p[None, :])[0])
    entropy = float(normalised_entropy(p[None, :])[0])
    return RatingDistribution(tuple(float(x) for x in p), expected, entropy)


def expected_ratings(matrix: TopicMatrix, ratings: np.ndarray | None = None) -> np.ndarray | None:
    """(Q, P) expected rating of each cell whose shown judgment carries a distribution, NaN
    elsewhere; None when no judgment of the shown judge on the topic carries one
    (``ratings``: the topic's ``rating_rows``: when none of the judge's rows stores a
    distribution, as for every greedy judge and person, no query is needed)."""
    if matrix.judge is None:
        return None
    if (
        ratings is not None
        and not (ratings[ratings[:, JUDGE] == matrix.judge.id, HAS_DISTRIBUTION]).any()
    ):
        return None
    rows = list(
        Judgment.objects.filter(
            topic=matrix.topic,
            judge_id=matrix.judge.id,
            task=PASSAGE_RATING,
            passage__isnull=False,
            distribution__isnull=False,
        ).values_list("subquestion_id", "passage_id", "distribution")
    )
    row_of = {r.subquestion_id: i for i, r in enumerate(matrix.rows)}
    col_of = {c.passage_id: i for i, c in enumerate(matrix.columns)}
    cells, probabilities = [], []
    for subquestion_id, passage_id, value in rows:
        p = stored_distribution(value)
        if p is not None and subquestion_id in row_of and passage_id in col_of:
            cells.append((row_of[subquestion_id], col_of[passage_id]))
            probabilities.append(p)
    if not cells:
        return None
    out = np.full(matrix.codes.shape, np.nan)
    r, c = np.array(cells).T
    out[r, c] = expected_rating(np.array(probabilities))
    return out
