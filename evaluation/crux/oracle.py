"""The oracle O of each topic: grade-3 passages of the chosen qrels source, or, for a topic
without qrels there, the greedy required subset over the judge's ratings (METHODS section 1),
whose computed grades then serve as that topic's qrels for the ranking metrics.

Computed for all topics at once as flat arrays: required rows, which topics had theirs
computed, and the ranking qrels as (topic, passage, grade) arrays rather than one dict of
strings per topic."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaluation.crux.collection_data import CollectionData
from evaluation.crux.method.crux_ratings import OUTSIDE
from evaluation.crux.method.required_subset import select_required

REQUIRED_GRADE = 3
# One oracle policy, stated in these words on the matrix, the leaderboard and by ``evaluate``.
ORACLE_POLICY = (
    "The oracle (required passages) of a topic without qrels in the chosen source is "
    "computed from the judge's ratings (greedy required subset, METHODS section 1); its "
    "computed grades serve as qrels for nDCG, MAP, Recall and R-Prec."
)


@dataclass(frozen=True)
class OracleArrays:
    required: np.ndarray  # (T, P) bool
    computed: np.ndarray  # (T,) bool: no qrels in the chosen source, O from the ratings
    # The ranking qrels, sorted by (topic, passage id): the chosen source's grades, or the
    # greedy's grades of the rated passages where the oracle is computed.
    topic: np.ndarray  # (N,) topic index
    passage: np.ndarray  # (N,) passage id
    grade: np.ndarray  # (N,)

    def ranked_grades(self, base: int, topic: np.ndarray, passage: np.ndarray) -> np.ndarray:
        """The qrels grade of each (topic index, passage id), 0 where it has none."""
        keys = self.topic * base + self.passage
        wanted = topic * base + passage
        if not len(keys):
            return np.zeros(len(wanted), np.int64)
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[at] == wanted, self.grade[at], 0)

    def grade_matrix(self, n_topics: int) -> np.ndarray:
        """(T, G) each topic's qrels grades, padded with 0."""
        first = np.searchsorted(self.topic, self.topic, side="left")
        column = np.arange(len(self.topic)) - first
        out = np.zeros((n_topics, int(column.max(initial=-1)) + 1), np.int64)
        out[self.topic, column] = self.grade
        return out


def oracle_arrays(data: CollectionData, tau: float, missing_as_zero: bool) -> OracleArrays:
    """Required rows from grade-3 qrels; the greedy required subset where a topic has none."""
    t, p = data.passage_valid.shape
    required = np.zeros((t, p), bool)
    computed = np.ones(t, bool)
    computed[data.qrel_topic] = False
    three = data.qrel_grade == REQUIRED_GRADE
    rows = data.rows_of(data.qrel_topic[three], data.qrel_passage[three])
    placed = rows != OUTSIDE
    required[data.qrel_topic[three][placed], rows[placed]] = True
    topic, passage, grade = data.qrel_topic, data.qrel_passage, data.qrel_grade
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
        # Grades of the passages the judge rated only: an unrated row is no qrel.
        judged = ~np.isnan(data.ratings[idx]).all(axis=2)
        j, r = np.nonzero(judged & (subset.grades > 0))
        topic = np.concatenate([topic, idx[j]])
        passage = np.concatenate([passage, data.row_passage[idx[j], r]])
        grade = np.concatenate([grade, subset.grades[j, r].astype(np.int64)])
        order = np.lexsort((passage, topic))
        topic, passage, grade = topic[order], passage[order], grade[order]
    return OracleArrays(required, computed, topic, passage, grade)
