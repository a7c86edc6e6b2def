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
    check_contexts,
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
    """(T, K, Q) relevance of the ranked passages -> (T, K) novelty-discounted gains.

    Only the relevant (position, subtopic) cells are visited, subtopic by subtopic: the i-th
    passage of the ranking relevant to a subtopic adds (1 - alpha) ** i at its position.
    """
    t, k, q = run_rel.shape
    gains = np.zeros(t * k)
    # (T, Q, K) order: each subtopic's relevant positions come in rank order, so a cell's
    # count of earlier ones is its index within the run of its (topic, subtopic).
    tt, qq, kk = np.nonzero(np.ascontiguousarray(run_rel.transpose(0, 2, 1)))
    if tt.size == 0:
        return gains.reshape(t, k)
    group = tt * q + qq
    first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    sizes = np.diff(np.r_[first, group.size])
    seen_before = np.arange(group.size) - np.repeat(first, sizes)
    powers = (1.0 - alpha) ** np.arange(k + 1, dtype=np.float64)
    np.add.at(gains, tt * k + kk, powers[seen_before])
    return gains.reshape(t, k)


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
    scores: np.ndarray,
    topics: np.ndarray,
    rel: np.ndarray,
    subtopic_gain: np.ndarray,
) -> np.ndarray:
    """Recompute the near-best scores summing subtopic by subtopic, as ndeval does.

    ``scores`` are the (A, P) scores of the topics ``topics`` of ``rel`` and ``subtopic_gain``.
    Ties are decided on exact equality, so when the summation order can change the rounding
    (alpha other than 0.5, or deep k) the contenders must round exactly as ndeval's do. A
    passage more than 1e-9 below the best cannot win in either order (rounding errors are
    ~1e-14), so only the few near the best are recomputed; the rest drop out.
    """
    available = np.isfinite(scores)
    near = available & (scores >= scores.max(axis=1, keepdims=True) - 1e-9)
    ti, ri = np.nonzero(near)
    exact = np.zeros(ti.shape[0])
    for j in range(subtopic_gain.shape[1]):
        exact += rel[topics[ti], ri, j] * subtopic_gain[topics[ti], j]
    rescored = np.full(scores.shape, -np.inf)
    rescored[ti, ri] = exact
    return rescored


# Topics per greedy pass: bounds the memory of a pass (its scores and the index of its
# relevant cells) whatever the batch.
TOPICS_PER_PASS = 4096


def ideal_gains(rel: np.ndarray, k: int, alpha: float) -> np.ndarray:
    """ndeval's greedy ideal ranking over (T, P, Q) passage relevance -> (T, k) gains."""
    gains = np.zeros((rel.shape[0], k))
    for start in range(0, rel.shape[0], TOPICS_PER_PASS):
        chunk = slice(start, start + TOPICS_PER_PASS)
        gains[chunk] = _greedy_ideal_gains(rel[chunk], k, alpha)
    return gains


def _greedy_ideal_gains(rel: np.ndarray, k: int, alpha: float) -> np.ndarray:
    """The greedy, stepping only the topics that still need it.

    A topic needs no step once it has k passages, or once no passage left covers two or more
    subtopics: from there each passage's score is its one subtopic's gain, so the greedy takes
    the gains g_q (1 - alpha) ** i (i below the passages left for q) largest first, whichever
    tied passage it picks, and they are written at once, sorted. A step costs an argmax over
    the topic's passages and an update of the passages that share a subtopic with the one
    taken, so the cost grows with the passages that cover several subtopics, not with k.
    """
    t, p, q = rel.shape
    gains = np.zeros((t, k))
    # Rows in descending order, so argmax's first maximum is the largest row: ndeval's tie
    # break (largest docno).
    rel = rel[:, ::-1]
    # For each (topic, subtopic): the flat score indices of the passages relevant to it, in
    # CSR form. One pass over the relevance ((T, Q, P) order keeps each (topic, subtopic)'s
    # entries together); every other count below comes from this index.
    tt, qq, pp = np.nonzero(np.ascontiguousarray(rel.transpose(0, 2, 1)))
    members = tt * p + pp
    cell_of = tt * q + qq
    bounds = np.zeros(t * q + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell_of, minlength=t * q), out=bounds[1:])
    n_subtopics = np.bincount(members, minlength=t * p).reshape(t, p)
    limit = np.minimum(k, (n_subtopics > 0).sum(axis=1))
    if not limit.any():
        return gains
    # Every gain starts at 1: a passage's first score is its number of relevant subtopics.
    scores = np.where(n_subtopics > 0, n_subtopics.astype(np.float64), -np.inf)
    flat_scores = scores.reshape(-1)
    multi = n_subtopics >= 2
    multi_left = multi.sum(axis=1)
    subtopic_gain = np.ones((t, q))
    covered = np.zeros((t, q), dtype=np.int64)  # times each subtopic was taken
    most_covered = 0
    done = np.zeros(t, dtype=np.int64)  # steps taken by the loop
    active = np.flatnonzero((limit > 0) & (multi_left > 0))
    step = 0
    while active.size:
        ranked = scores[active]
        # Exactness depends on how often a subtopic was covered so far, not on the depth:
        # ndeval-order rescoring is needed only once that count is large (rare).
        if not _sums_exact_in_any_order(alpha, most_covered, q):
            ranked = _rescore_in_ndeval_order(ranked, active, rel, subtopic_gain)
        pick = np.argmax(ranked, axis=1)
        best = ranked[np.arange(active.size), pick]
        gains[active, step] = np.maximum(best, 0.0)
        scores[active, pick] = -np.inf
        multi_left[active] -= multi[active, pick]
        ti, qi = np.nonzero(rel[active, pick] & (best > 0)[:, None])
        ti = active[ti]
        if ti.size:
            covered[ti, qi] += 1
            most_covered = max(most_covered, int(covered[ti, qi].max()))
            # Only the subtopics just taken lose gain: subtract it from the scores of the
            # passages relevant to them instead of recomputing every score.
            cell = ti * q + qi
            first, count = bounds[cell], bounds[cell + 1] - bounds[cell]
            offsets = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
            lost = np.repeat(subtopic_gain[ti, qi] * alpha, count)
            np.subtract.at(flat_scores, members[np.repeat(first, count) + offsets], lost)
            subtopic_gain[ti, qi] *= 1.0 - alpha
        step += 1
        done[active] = step
        active = active[(step < limit[active]) & (multi_left[active] > 0)]
    # Passages left per (topic, subtopic), for the topics that end in the single-subtopic tail.
    left = np.bincount(cell_of[np.isfinite(flat_scores[members])], minlength=t * q)
    _single_subtopic_tail(gains, left.reshape(t, q), subtopic_gain, done, limit, alpha)
    return gains


def _single_subtopic_tail(
    gains: np.ndarray,
    left: np.ndarray,
    subtopic_gain: np.ndarray,
    done: np.ndarray,
    limit: np.ndarray,
    alpha: float,
) -> None:
    """Write the gains of steps ``done``..``limit`` of the topics whose passages left each
    cover one subtopic: g_q, g_q (1 - alpha), ... (as many as q's passages left, multiplied
    in turn as the greedy does), largest first; ``left``: (T, Q) passages left per subtopic."""
    tail = np.flatnonzero(done < limit)
    if tail.size == 0:
        return
    left = left[tail]
    depth = int(left.max())
    values = np.empty((tail.size, left.shape[1], depth))
    value = subtopic_gain[tail].copy()
    for i in range(depth):
        values[:, :, i] = np.where(i < left, value, -np.inf)
        value = value * (1.0 - alpha)
    ordered = -np.sort(-values.reshape(tail.size, -1), axis=1)
    width = limit[tail] - done[tail]
    row, j = np.nonzero(np.arange(ordered.shape[1])[None, :] < width[:, None])
    gains[tail[row], done[tail[row]] + j] = np.maximum(ordered[row, j], 0.0)


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


def _run_relevance(
    batch: RatingsBatch,
    top: np.ndarray,
    answerable: AnswerableSet,
    tau: float,
    rel: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """(T, K, Q) relevance of the ranked passages and (T,) count of their unjudged answerable
    cells. With the batch's relevance at hand (computed for the ideal) it gathers booleans and
    per-passage counts; else the top-k ratings only, so a small k reads little."""
    outside = top == OUTSIDE
    if rel is None or rel.shape[1] == 0:
        run = context_ratings(batch, top)
        with np.errstate(invalid="ignore"):
            run_rel = (run >= tau) & answerable.mask[:, None, :]
        return run_rel, (np.isnan(run) & answerable.mask[:, None, :]).sum(axis=(1, 2))
    unjudged = (np.isnan(batch.ratings) & answerable.mask[:, None, :]).sum(axis=2)
    rows = np.where(outside, 0, top)
    run_rel = np.take_along_axis(rel, rows[:, :, None], axis=1) & ~outside[:, :, None]
    missing = np.where(outside, 0, np.take_along_axis(unjudged, rows, axis=1)).sum(axis=1)
    return run_rel, missing


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
    contexts = check_contexts(batch, contexts)
    top = np.full((batch.n_topics, k), OUTSIDE, dtype=np.int64)
    width = min(k, contexts.shape[1])
    top[:, :width] = contexts[:, :width]
    rel = _relevance(batch, answerable, tau) if ideal is None else None
    run_rel, missing = _run_relevance(batch, top, answerable, tau, rel)
    disc = discounts(k)
    dcg = run_gains(run_rel, alpha) @ disc
    if rel is not None:
        ideal = ideal_gains(rel, k, alpha) @ disc
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
