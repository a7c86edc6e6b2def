"""Ranked coverage: alpha-nDCG@k over answerable sub-questions (METHODS section 1), any k.

Each answerable sub-question is a subtopic; a passage is relevant to it iff r >= tau. The
run's real rank order is used (no re-sorting by score). Conventions follow ndeval (TREC Web
track, also behind ir_measures' pyndeval provider), so results match it exactly for k <= 20:

- gain at rank j = sum over subtopics of rel * (1 - alpha) ** (relevant passages above j);
  discount 1 / log2(j + 1); alpha-nDCG@k = alpha-DCG@k / ideal alpha-DCG@k.
- The ideal ranking is ndeval's greedy one over all the topic's passages (rows): at each rank
  take the passage with the largest gain given those already taken; ndeval breaks ties by the
  larger docno, we by the larger row index, so rows in ascending passage-id order (and
  subtopics numbered in question order) reproduce ndeval exactly.
- An unjudged rating (NaN) counts as not relevant, as an unjudged document does in ndeval;
  the count of such (top-k passage, answerable question) triples is reported (``missing``).

Deliberate differences from ndeval: a topic without answerable sub-question has an undefined
value (NaN / None; ndeval reports 0). An empty run scores 0 (ndeval has no row for it;
ir_measures fills in 0).
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.crux.method.coverage import DEFAULT_TAU, AnswerableSet, answerable_set, check_tau
from evaluation.crux.method.crux_ratings import (
    OUTSIDE,
    RatingsBatch,
    TopicRatings,
    context_ratings,
    stack_contexts,
)

DEFAULT_ALPHA = 0.5


@dataclass(frozen=True)
class AlphaNDCGBatch:
    """Per-topic (T,) arrays: alpha-nDCG@k (NaN when A is empty), alpha-DCG@k, ideal DCG@k."""

    value: np.ndarray
    dcg: np.ndarray
    ideal_dcg: np.ndarray
    missing: np.ndarray  # NaN (top-k passage, answerable question) triples, counted as 0

    def topic(self, t: int) -> float | None:
        return None if np.isnan(self.value[t]) else float(self.value[t])


def discounts(k: int) -> np.ndarray:
    """1 / log2(rank + 1) for ranks 1..k."""
    return 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))


def _relevance(batch: RatingsBatch, answerable: AnswerableSet, tau: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        rel = batch.ratings >= tau
    return rel & answerable.mask[:, None, :] & batch.passage_valid[:, :, None]


def run_gains(run_rel: np.ndarray, alpha: float) -> np.ndarray:
    """(T, K, Q) relevance of the ranked passages -> (T, K) novelty-discounted gains."""
    rel = run_rel.astype(np.int32)
    seen_before = np.cumsum(rel, axis=1, dtype=np.int32) - rel
    # (1 - alpha) ** c from a table: one gather instead of a power per cell.
    powers = (1.0 - alpha) ** np.arange(run_rel.shape[1] + 1, dtype=np.float64)
    return np.where(run_rel, powers[seen_before], 0.0).sum(axis=2)


def _sums_exact_in_any_order(alpha: float, max_covered: int, n_subtopics: int) -> bool:
    """Whether every greedy score is exact whatever the summation order.

    Gains are (1 - alpha) ** c, c the times a subtopic is already covered (at most
    ``max_covered``). When 1 - alpha = 2 ** -m they are powers of two, and a sum of n of them
    down to 2 ** -(m * c) fits a double's 53-bit mantissa exactly when
    m * c + bits(n) <= 52 (alpha = 0.5, 15 subtopics: until a subtopic is covered 48 times).
    """
    base = 1.0 - alpha
    if base == 1.0:
        return True
    m = round(-np.log2(base))
    return bool(m > 0 and base == 2.0**-m and m * max_covered + n_subtopics.bit_length() <= 52)


def _rescore_in_ndeval_order(
    scores: np.ndarray, available: np.ndarray, pool_f: np.ndarray, subtopic_gain: np.ndarray
) -> np.ndarray:
    """Recompute the near-best scores summing subtopic by subtopic, as ndeval does.

    Ties are decided on exact equality, so when the summation order can change the rounding
    (alpha other than 0.5, or deep k) the contenders must round exactly as ndeval's do. A
    passage more than 1e-9 below the best cannot win in either order (rounding errors are
    ~1e-14), so only the few near the best are recomputed; the rest drop out.
    """
    near = available & (scores >= scores.max(axis=1, keepdims=True) - 1e-9)
    ti, ri = np.nonzero(near)
    exact = np.zeros(ti.shape[0])
    for j in range(subtopic_gain.shape[1]):
        exact += pool_f[ti, ri, j] * subtopic_gain[ti, j]
    rescored = np.full(scores.shape, -np.inf)
    rescored[ti, ri] = exact
    return rescored


# Topics per greedy pass: a chunk's (R, Q) relevance stays in cache through all its steps,
# where the whole batch (5,000 topics x 80 x 15 doubles, ~50 MB) is re-read from memory at
# every step; deep k paid that cost per step (alpha-nDCG@100 took 7x the time of @20).
TOPICS_PER_PASS = 256


def ideal_gains(rel: np.ndarray, k: int, alpha: float) -> np.ndarray:
    """ndeval's greedy ideal ranking over (T, P, Q) passage relevance -> (T, k) gains."""
    gains = np.zeros((rel.shape[0], k))
    for start in range(0, rel.shape[0], TOPICS_PER_PASS):
        chunk = slice(start, start + TOPICS_PER_PASS)
        gains[chunk] = _greedy_ideal_gains(rel[chunk], k, alpha)
    return gains


def _greedy_ideal_gains(rel: np.ndarray, k: int, alpha: float) -> np.ndarray:
    t, _, q = rel.shape
    gains = np.zeros((t, k))
    # Rows in descending order, so argmax's first maximum is the largest row: ndeval's tie
    # break (largest docno). Only passages relevant to some subtopic can ever gain: keep them
    # first, so the greedy runs over R <= P columns and at most min(k, R) steps.
    rel = rel[:, ::-1]
    has_rel = rel.any(axis=2)
    order = np.argsort(~has_rel, axis=1, kind="stable")
    r = int(has_rel.sum(axis=1).max(initial=0))
    order = order[:, :r]
    pool_valid = np.take_along_axis(has_rel, order, axis=1)
    pool = np.take_along_axis(rel, order[:, :, None], axis=1) & pool_valid[:, :, None]
    pool_f = pool.astype(np.float64)
    # (T, Q, R): one subtopic's column over the pool is contiguous, for the updates below.
    by_subtopic = np.ascontiguousarray(pool_f.transpose(0, 2, 1))
    subtopic_gain = np.ones((t, q))
    covered = np.zeros((t, q), dtype=np.int64)  # times each subtopic was taken
    # Every gain starts at 1: a passage's first score is its number of relevant subtopics.
    scores = pool_f.sum(axis=2) + np.where(pool_valid, 0.0, -np.inf)
    rows = np.arange(t)
    for step in range(min(k, r)):
        # Exactness depends on how often a subtopic was covered so far, not on the depth:
        # ndeval-order rescoring is needed only once that count is large (rare).
        exact = _sums_exact_in_any_order(alpha, int(covered.max(initial=0)), q)
        ranked = (
            scores
            if exact
            else _rescore_in_ndeval_order(scores, np.isfinite(scores), pool_f, subtopic_gain)
        )
        pick = np.argmax(ranked, axis=1)
        best = ranked[rows, pick]
        gains[:, step] = np.maximum(best, 0.0)
        scores[rows, pick] = -np.inf
        taken = pool[rows, pick] & (best > 0)[:, None]
        covered += taken
        # Only the subtopics just taken lose gain: update the scores through their columns
        # (the picked passage covers a few of the Q subtopics) instead of recomputing all.
        width = int(taken.sum(axis=1).max(initial=0))
        if width:
            columns = np.argsort(~taken, axis=1, kind="stable")[:, :width]
            lost = np.take_along_axis(np.where(taken, subtopic_gain * alpha, 0.0), columns, 1)
            scores -= np.einsum("tsr,ts->tr", by_subtopic[rows[:, None], columns], lost)
        subtopic_gain = np.where(taken, subtopic_gain * (1.0 - alpha), subtopic_gain)
    return gains


def _check(tau: float, k: int, alpha: float) -> float:
    tau = check_tau(tau)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not 0 <= alpha < 1:
        raise ValueError(f"alpha must lie in [0, 1), got {alpha}")
    return tau


def ideal_dcg(
    batch: RatingsBatch,
    answerable: AnswerableSet,
    k: int,
    tau: float = DEFAULT_TAU,
    alpha: float = DEFAULT_ALPHA,
) -> np.ndarray:
    """(T,) ideal alpha-DCG@k: the same for every run of the batch, so several runs can share
    it (``alpha_ndcg(..., ideal=...)``)."""
    tau = _check(tau, k, alpha)
    return ideal_gains(_relevance(batch, answerable, tau), k, alpha) @ discounts(k)


def alpha_ndcg(
    batch: RatingsBatch,
    contexts: np.ndarray,
    answerable: AnswerableSet,
    k: int,
    tau: float = DEFAULT_TAU,
    alpha: float = DEFAULT_ALPHA,
    ideal: np.ndarray | None = None,
) -> AlphaNDCGBatch:
    """alpha-nDCG@k of each topic's ranked context ((T, K) row indices, ``OUTSIDE`` = 0);
    ``ideal``: ``ideal_dcg`` of the same batch, answerable sets, k, tau and alpha."""
    tau = _check(tau, k, alpha)
    contexts = np.asarray(contexts, dtype=np.int64)
    top = np.full((batch.n_topics, k), OUTSIDE, dtype=np.int64)
    width = min(k, contexts.shape[1]) if contexts.ndim == 2 else 0
    top[:, :width] = contexts[:, :width]
    run = context_ratings(batch, top)
    with np.errstate(invalid="ignore"):
        run_rel = (run >= tau) & answerable.mask[:, None, :]
    missing = (np.isnan(run) & answerable.mask[:, None, :]).sum(axis=(1, 2))
    disc = discounts(k)
    dcg = run_gains(run_rel, alpha) @ disc
    if ideal is None:
        ideal = ideal_dcg(batch, answerable, k, tau, alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(answerable.size > 0, dcg / np.where(ideal > 0, ideal, 1.0), np.nan)
    return AlphaNDCGBatch(value=value, dcg=dcg, ideal_dcg=ideal, missing=missing)


def topic_alpha_ndcg(
    topic: TopicRatings,
    context: Sequence[int],
    k: int,
    tau: float = DEFAULT_TAU,
    alpha: float = DEFAULT_ALPHA,
) -> float | None:
    """alpha-nDCG@k of one ranked context; None when the topic has no answerable question."""
    batch = RatingsBatch.single(topic)
    answerable = answerable_set(batch, tau)
    return alpha_ndcg(batch, stack_contexts([context]), answerable, k, tau, alpha).topic(0)
