"""Kendall tau between the system rankings induced by metrics."""

import math

import numpy as np
import pytest

from evaluation.shared.metric_agreement import TOO_FEW, kendall_matrix, kendall_tau

# The hand-computed cases rank 2 or 3 systems: too few to measure by default (see
# test_fewer_than_four_systems_are_not_measured), so they lift the floor to check the math.
FEW = 2


def test_identical_and_reversed_rankings():
    a = {"s1": 0.1, "s2": 0.2, "s3": 0.3}
    assert kendall_tau(a, {"s1": 10, "s2": 20, "s3": 30}, min_ranked=FEW).tau == pytest.approx(1.0)
    assert kendall_tau(a, {"s1": 3, "s2": 2, "s3": 1}, min_ranked=FEW).tau == pytest.approx(-1.0)


def test_hand_computed_tau():
    # a = 1, 2, 3, 4; b = 1, 3, 2, 4. Of the 6 pairs only (s2, s3) is discordant:
    # tau = (5 - 1) / 6 = 2/3.
    a = {"s1": 1, "s2": 2, "s3": 3, "s4": 4}
    b = {"s1": 1, "s2": 3, "s3": 2, "s4": 4}
    result = kendall_tau(a, b)
    assert result.tau == pytest.approx(2 / 3)
    assert (result.n, result.dropped, result.reason) == (4, 0, None)
    assert 0 < result.p_value <= 1


def test_ties_use_tau_b():
    # a = 1, 1, 2; b = 1, 2, 3: pairs (s1,s2) tied in a, (s1,s3) and (s2,s3) concordant.
    # tau_b = (2 - 0) / sqrt((3 - 1) * (3 - 0)) = 2 / sqrt(6).
    result = kendall_tau({"s1": 1, "s2": 1, "s3": 2}, {"s1": 1, "s2": 2, "s3": 3}, min_ranked=FEW)
    assert result.tau == pytest.approx(2 / math.sqrt(6))


def test_undefined_systems_are_dropped_and_counted():
    a = {"s1": 1, "s2": 2, "s3": None, "s4": 4, "s5": 5}
    b = {"s1": 1, "s2": 2, "s3": 3, "s4": float("nan")}  # s5 absent from b
    result = kendall_tau(a, b, min_ranked=FEW)
    assert (result.n, result.dropped) == (2, 3)
    assert result.tau == pytest.approx(1.0)


def test_fewer_than_two_systems_is_undefined():
    result = kendall_tau({"s1": 1.0}, {"s1": 2.0})
    assert result.tau is None and result.p_value is None
    assert result.reason == TOO_FEW
    assert kendall_tau({}, {}).reason == TOO_FEW


def test_fewer_than_four_systems_are_not_measured():
    """Between 2 runs tau is +1 or -1 whatever the metrics: not measured, and said so."""
    two = kendall_tau({"bm25": 0.3, "dense": 0.5}, {"bm25": 0.2, "dense": 0.6})
    assert two.tau is None and two.p_value is None and two.too_few
    assert two.reason == "run-ranking agreement is not measurable with 2 runs (needs at least 4)"
    three = kendall_tau({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3, "c": 2})
    assert three.tau is None and three.too_few and "with 3 runs" in three.reason
    four = kendall_tau({"a": 1, "b": 2, "c": 3, "d": 4}, {"a": 1, "b": 3, "c": 2, "d": 4})
    assert four.tau == pytest.approx(2 / 3) and not four.too_few
    matrix = kendall_matrix({"x": {"a": 1, "b": 2}, "y": {"a": 2, "b": 1}})
    assert matrix.too_few_runs == 2
    assert np.isnan(matrix.as_array()).all()
    four_runs = {"a": 1, "b": 2, "c": 3, "d": 4}
    assert kendall_matrix({"x": four_runs, "y": four_runs}).too_few_runs is None


def test_constant_metric_is_undefined_not_zero():
    result = kendall_tau({"s1": 0.5, "s2": 0.5}, {"s1": 1, "s2": 2}, ("coverage", "nDCG"))
    assert result.tau is None
    assert result.reason == "coverage constant across systems"


def test_matrix_is_symmetric_with_unit_diagonal_and_nan_where_undefined():
    metrics = {
        "coverage": {"bm25": 0.3, "dense": 0.5, "rerank": 0.6},
        "alpha-nDCG": {"bm25": 0.2, "dense": 0.6, "rerank": 0.5},
        "flat": {"bm25": 1.0, "dense": 1.0, "rerank": 1.0},
    }
    matrix = kendall_matrix(metrics, min_ranked=FEW)
    taus = matrix.as_array()
    # coverage vs alpha-nDCG: pairs (bm25, dense) c, (bm25, rerank) c, (dense, rerank) d
    # -> (2 - 1) / 3.
    assert taus[0, 1] == pytest.approx(1 / 3)
    assert taus[1, 0] == taus[0, 1]
    assert taus[0, 0] == taus[1, 1] == pytest.approx(1.0)
    assert np.isnan(taus[2]).all() and np.isnan(taus[:, 2]).all()
    assert matrix.taus[("flat", "flat")].reason == "flat constant across systems"
    assert matrix.taus[("coverage", "flat")].reason == "flat constant across systems"
    assert kendall_matrix(metrics, order=["flat", "coverage"]).names == ["flat", "coverage"]
