"""What the runs of one evaluation share or gather: a precomputed ideal alpha-DCG gives the
same alpha-nDCG, and gathering context ratings (OUTSIDE rates 0, even with no rows at all)."""

import numpy as np

from evaluation.crux.method.alpha_ndcg import alpha_ndcg, ideal_dcg
from evaluation.crux.method.coverage import answerable_set
from evaluation.crux.method.crux_ratings import OUTSIDE, RatingsBatch, context_ratings


def _batch(rng, t=40, p=12, q=5):
    ratings = rng.integers(0, 6, size=(t, p, q)).astype(float)
    ratings[rng.random(ratings.shape) < 0.05] = np.nan
    required = rng.random((t, p)) < 0.3
    return RatingsBatch(ratings, np.ones((t, p), bool), np.ones((t, q), bool), required)


def test_a_shared_ideal_gives_the_same_alpha_ndcg():
    rng = np.random.default_rng(5)
    batch = _batch(rng)
    answerable = answerable_set(batch, 3.0)
    ideal = ideal_dcg(batch, answerable, 4, 3.0, 0.5)
    for _ in range(3):
        contexts = np.stack([rng.permutation(12)[:6] for _ in range(40)])
        contexts[:, 5] = OUTSIDE
        alone = alpha_ndcg(batch, contexts, answerable, 4, 3.0, 0.5)
        shared = alpha_ndcg(batch, contexts, answerable, 4, 3.0, 0.5, ideal=ideal)
        assert np.array_equal(alone.value, shared.value, equal_nan=True)
        assert np.array_equal(alone.ideal_dcg, ideal)


def test_context_ratings_gather_rows_and_rate_outside_zero():
    rng = np.random.default_rng(6)
    batch = _batch(rng, t=3, p=4, q=2)
    contexts = np.array([[2, OUTSIDE, 0], [OUTSIDE, OUTSIDE, OUTSIDE], [3, 1, 2]])
    got = context_ratings(batch, contexts)
    for t in range(3):
        for k, row in enumerate(contexts[t]):
            want = np.zeros(2) if row == OUTSIDE else batch.ratings[t, row]
            assert np.array_equal(got[t, k], want, equal_nan=True)
    assert not np.shares_memory(got, batch.ratings)


def test_context_ratings_of_a_batch_without_rows():
    empty = RatingsBatch(
        np.zeros((2, 0, 3)), np.zeros((2, 0), bool), np.ones((2, 3), bool), np.zeros((2, 0), bool)
    )
    got = context_ratings(empty, np.full((2, 4), OUTSIDE))
    assert got.shape == (2, 4, 3) and not got.any()
