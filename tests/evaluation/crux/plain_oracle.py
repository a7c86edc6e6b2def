"""The oracle computed topic by topic, one dict of grades per topic: the reference the
production oracle (``evaluation.crux.oracle.oracle_arrays``, all topics at once as arrays) is
tested against."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaluation.crux.collection_data import CollectionData
from evaluation.crux.method.crux_ratings import OUTSIDE
from evaluation.crux.method.required_subset import select_required
from evaluation.crux.oracle import REQUIRED_GRADE


@dataclass(frozen=True)
class Oracle:
    required: np.ndarray  # (T, P) bool
    computed: np.ndarray  # (T,) bool
    grades: list[dict[str, int]]  # per topic: passage id (str) -> grade, the ranking qrels


def build_oracle(data: CollectionData, tau: float, missing_as_zero: bool) -> Oracle:
    """Required rows from grade-3 qrels; the greedy required subset where a topic has none."""
    t, p = data.passage_valid.shape
    required = np.zeros((t, p), bool)
    grades: list[dict[str, int]] = [{} for _ in range(t)]
    computed = np.array([not q for q in data.qrels], dtype=bool)
    for i, qrels in enumerate(data.qrels):
        grades[i] = {str(pid): g for pid, g in qrels.items()}
        oracle_ids = np.array([pid for pid, g in qrels.items() if g == REQUIRED_GRADE], np.int64)
        rows = data.rows_of(np.full(len(oracle_ids), i), oracle_ids)
        required[i, rows[rows != OUTSIDE]] = True
    idx = np.flatnonzero(computed)
    if idx.size:
        subset = select_required(
            data.ratings[idx],
            data.passage_valid[idx],
            data.question_valid[idx],
            tau,
            missing_as_zero,
        )
        required[idx] = subset.selection_step >= 0
        judged = ~np.isnan(data.ratings[idx]).all(axis=2)
        for j, i in enumerate(idx):
            # Grades of the passages the judge rated only: an unrated row is no qrel.
            rows = np.flatnonzero(judged[j] & (subset.grades[j] > 0))
            grades[i] = {str(data.row_passage[i, r]): int(subset.grades[j, r]) for r in rows}
    return Oracle(required, computed, grades)
