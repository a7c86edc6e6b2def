"""Per-topic metric arrays of one run, for ``evaluate``: its contexts (top-k rows), alpha-nDCG,
density and the ranking metrics, each computed for every topic at once.

What does not depend on the run (the ideal alpha-DCG, the ranking qrels as a grade matrix) is
computed once per evaluation and shared by the runs (``SharedInputs``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from evaluation.crux.collection_data import CollectionData, RunRanking
from evaluation.crux.method.alpha_ndcg import alpha_ndcg, ideal_dcg
from evaluation.crux.method.coverage import AnswerableSet, CoverageBatch
from evaluation.crux.method.crux_ratings import OUTSIDE, RatingsBatch
from evaluation.crux.method.density import density
from evaluation.crux.method.ranking import ranking_arrays
from evaluation.crux.oracle import OracleArrays


def rows(batch: RatingsBatch, idx: np.ndarray) -> RatingsBatch:
    """The batch restricted to topics ``idx``."""
    if len(idx) == batch.n_topics:  # all topics, in order: no copy (nor re-validation)
        return batch
    return RatingsBatch(
        batch.ratings[idx], batch.passage_valid[idx], batch.question_valid[idx], batch.required[idx]
    )


def take(result: object, idx: np.ndarray) -> object:
    """The same per-topic dataclass restricted to topics ``idx`` (every field is (T, ...))."""
    if len(idx) == len(getattr(result, fields(result)[0].name)):
        return result
    return type(result)(**{f.name: getattr(result, f.name)[idx] for f in fields(result)})


def contexts(data: CollectionData, run: RunRanking, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T, K) row indices (``OUTSIDE`` for other topics' passages and padding) and passage ids
    (-1 for padding) of each topic's top-k."""
    width = int(k.max(initial=0))
    keep = run.position < k[run.topic]
    topic, position, passage = run.topic[keep], run.position[keep], run.passage[keep]
    out_rows = np.full((data.n_topics, width), OUTSIDE, np.int64)
    ids = np.full((data.n_topics, width), -1, np.int64)
    out_rows[topic, position] = data.rows_of(topic, passage)
    ids[topic, position] = passage
    return out_rows, ids


@dataclass(frozen=True)
class SharedInputs:
    """What every run's metrics read and no run changes."""

    batch: RatingsBatch
    answerable: AnswerableSet
    k: np.ndarray  # (T,) cutoff per topic
    tau: float
    alpha: float
    ideal: dict[int, np.ndarray]  # cutoff -> ideal alpha-DCG of the topics with that cutoff
    qrel_grades: np.ndarray  # (T, G) the ranking qrels' grades per topic

    @classmethod
    def build(
        cls,
        batch: RatingsBatch,
        answerable: AnswerableSet,
        k: np.ndarray,
        oracle: OracleArrays,
        tau: float,
        alpha: float,
    ) -> SharedInputs:
        ideal = {}
        for cutoff in np.unique(k[k >= 1]).tolist():
            idx = np.flatnonzero(k == cutoff)
            ideal[cutoff] = ideal_dcg(rows(batch, idx), take(answerable, idx), cutoff, tau, alpha)
        grades = oracle.grade_matrix(len(k))
        return cls(batch, answerable, k, tau, alpha, ideal, grades)


def alpha_values(shared: SharedInputs, run_rows: np.ndarray) -> np.ndarray:
    """alpha-nDCG@k per topic; with per-topic k (|O|), one call per distinct k."""
    out = np.full(shared.batch.n_topics, np.nan)
    for cutoff, ideal in shared.ideal.items():
        idx = np.flatnonzero(shared.k == cutoff)
        result = alpha_ndcg(
            rows(shared.batch, idx),
            run_rows[idx],
            take(shared.answerable, idx),
            cutoff,
            shared.tau,
            shared.alpha,
            ideal=ideal,
        )
        out[idx] = result.value
    return out


def density_values(
    coverage: CoverageBatch, context_tokens: np.ndarray, oracle_tokens: np.ndarray, gamma: float
) -> tuple[np.ndarray, np.ndarray]:
    """Raw and normalised density; undefined where a token count is unknown."""
    known = np.flatnonzero(~np.isnan(context_tokens) & ~np.isnan(oracle_tokens))
    raw = np.full(len(context_tokens), np.nan)
    norm = raw.copy()
    if known.size:
        result = density(take(coverage, known), context_tokens[known], oracle_tokens[known], gamma)
        raw[known], norm[known] = result.raw, result.normalised
    return raw, norm


def ranking_values(
    data: CollectionData,
    run: RunRanking,
    oracle: OracleArrays,
    shared: SharedInputs,
    min_relevance: int,
) -> dict[str, np.ndarray]:
    """nDCG@k, MAP, R@k, R-Prec per topic against the oracle's qrels, full rankings."""
    depth = int(run.position.max(initial=-1)) + 1
    ranked = np.zeros((data.n_topics, depth), np.int64)
    ranked[run.topic, run.position] = oracle.ranked_grades(data.base, run.topic, run.passage)
    values = ranking_arrays(ranked, shared.qrel_grades, shared.k, min_relevance)
    return {"ndcg": values.ndcg, "map": values.ap, "recall": values.recall, "rprec": values.rprec}
