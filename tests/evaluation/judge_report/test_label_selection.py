"""The pure choice of what to label next: seeded, bounded, hand-computed cases."""

import math

import numpy as np
import pytest

from evaluation.judge_report.method.label_selection import (
    KEEPS_PPI_UNBIASED,
    allocation,
    disagreement,
    least_certain,
    near_tau,
    quantile_strata,
    rating_entropy,
    stratified,
    uniform,
)


def test_uniform_is_seeded_sorted_and_without_replacement():
    a, b = uniform(50, 10, seed=3), uniform(50, 10, seed=3)
    assert np.array_equal(a, b) and len(set(a.tolist())) == 10
    assert np.all(np.diff(a) > 0) and a.min() >= 0 and a.max() < 50
    assert not np.array_equal(a, uniform(50, 10, seed=4))
    assert uniform(3, 10, seed=0).tolist() == [0, 1, 2]  # n over the candidates: all of them


def test_uniform_inclusion_is_uniform():
    counts = np.zeros(10)
    for seed in range(2000):
        counts[uniform(10, 3, seed)] += 1
    assert np.allclose(counts / 2000, 0.3, atol=0.04)


def test_allocation_by_largest_remainder():
    # 10 over sizes 5, 3, 2 of 10: exactly 5, 3, 2
    assert allocation(np.array([5, 3, 2]), 10).tolist() == [5, 3, 2]
    # 4 over 5, 3, 2: exact 2.0, 1.2, 0.8 -> floors 2, 1, 0; one left, to the 0.8 remainder
    assert allocation(np.array([5, 3, 2]), 4).tolist() == [2, 1, 1]
    # 3 over 6, 6: 1.5 each -> floors 1, 1; the tie goes to the first
    assert allocation(np.array([6, 6]), 3).tolist() == [2, 1]


def test_stratified_draws_each_stratum_in_proportion_with_known_probabilities():
    strata = np.array([0] * 6 + [1] * 3 + [2] * 1)
    chosen, probability = stratified(strata, 5, seed=1)
    # 5 over 6, 3, 1: exact 3.0, 1.5, 0.5 -> 3, 1, 0 plus one to the 0.5 of the larger (1)
    assert np.bincount(strata[chosen], minlength=3).tolist() == [3, 2, 0]
    assert probability.tolist() == [0.5] * 6 + [2 / 3] * 3 + [0.0]
    again, _ = stratified(strata, 5, seed=1)
    assert np.array_equal(chosen, again)


def test_least_certain_takes_the_highest_and_breaks_ties_by_seed():
    u = np.array([0.1, 2.0, np.nan, 2.0, 0.5, 2.0])
    assert least_certain(u, 2, seed=0).tolist() in ([1, 3], [1, 5], [3, 5])
    assert least_certain(u, 4, seed=0).tolist() == [1, 3, 4, 5]
    assert least_certain(u, 6, seed=0).tolist() == [0, 1, 2, 3, 4, 5]  # NaN last
    picks = {tuple(least_certain(u, 1, seed=s).tolist()) for s in range(30)}
    assert picks == {(1,), (3,), (5,)}


def test_quantile_strata():
    scores = np.array([0.9, 0.1, np.nan, 0.5, 0.3])
    # finite ranks 3, 0, 2, 1 of 4 into 2 strata: rank * 2 // 4
    assert quantile_strata(scores, 2).tolist() == [1, 0, -1, 1, 0]


def test_uncertainty_measures():
    entropy = rating_entropy(np.array([[1, 0, 0], [0.5, 0.5, 0], [1, 1, 1], [0, 0, 0]]))
    assert entropy[0] == 0 and math.isclose(entropy[1], math.log(2))
    assert math.isclose(entropy[2], math.log(3)) and math.isnan(entropy[3])
    assert disagreement(np.array([1, 5, np.nan]), np.array([3, 5, 2])).tolist()[:2] == [2, 0]
    # tau 3: ratings 2 and 3 are the closest calls (distance 0.5), 0 and 5 the surest
    assert near_tau(np.array([0, 2, 3, 5]), 3).tolist() == [-2.5, -0.5, -0.5, -2.5]


def test_which_strategies_keep_ppi_unbiased():
    assert KEEPS_PPI_UNBIASED == {"random": True, "stratified": True, "uncertain": False}


@pytest.mark.parametrize("n", [0, -1, 2.5])
def test_bad_n_is_refused(n):
    with pytest.raises(ValueError, match="n must be"):
        uniform(10, n, seed=0)
