"""Degenerate-judge warnings about the judge a topic's coverage matrix shows: its ratings of
the matrix cells (nearly constant, too many unparsable), the checks of
``evaluation.crux.judge_warnings``."""

from __future__ import annotations

import numpy as np

from evaluation.crux.judge_warnings import rating_warnings
from evaluation.crux.matrix.matrix import TopicMatrix
from evaluation.shared.degenerate import JudgeWarning


def matrix_warnings(matrix: TopicMatrix) -> list[JudgeWarning]:
    """The shown judge's ratings of the topic's matrix cells (its numbers are the matrix)."""
    if matrix.judge is None:
        return []
    codes = matrix.codes[matrix.codes >= 0]
    values, counts = np.unique(codes, return_counts=True)
    histogram = dict(zip(values.tolist(), counts.tolist(), strict=True))
    scope = f"of topic {matrix.topic.external_id}"
    warnings = rating_warnings(matrix.judge.name, histogram, matrix.n_unparsable, scope)
    return [w.linked("#matrix-plot", "its ratings: the matrix below") for w in warnings]
