"""Pearson r with p-value and n, undefined with a reason for too few pairs or constant input."""

import math

import pytest
from scipy.stats import pearsonr

from evaluation.shared.pearson_correlation import pearson


def test_a_hand_computed_correlation():
    # x = 1, 2, 3; y = 1, 3, 2: means 2 and 2; sum of products 0*... = (-1)(-1) + 0 + (1)(0) = 1,
    # sum of squares 2 and 2: r = 1 / 2.
    result = pearson([1, 2, 3], [1, 3, 2])
    assert result.r == pytest.approx(0.5) and result.n == 3 and result.undefined is None
    # For n = 3 the t statistic has 1 degree of freedom: p = 1 - 2 * atan(|t|) / pi.
    t = 0.5 * math.sqrt(1 / (1 - 0.25))
    assert result.p_value == pytest.approx(1 - 2 * math.atan(t) / math.pi)


def test_missing_values_are_dropped_pairwise():
    result = pearson([1, None, 2, 3, float("nan"), 4], [2, 5, 4, 7, 1, 9])
    expected = pearsonr([1, 2, 3, 4], [2, 4, 7, 9])
    assert result.n == 4
    assert result.r == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)


@pytest.mark.parametrize(
    ("x", "y", "reason"),
    [
        ([1, 2], [3, 4], "fewer than 3 pairs with both values (n=2)"),
        ([1, 2, None], [3, 4, 5], "fewer than 3 pairs with both values (n=2)"),
        ([1, 1, 1], [1, 2, 3], "x is constant (1 for every pair)"),
        ([0, 1, 2], [0.5, 0.5, 0.5], "y is constant (0.5 for every pair)"),
    ],
)
def test_undefined_with_the_reason(x, y, reason):
    result = pearson(x, y)
    assert result.r is None and result.p_value is None and result.undefined == reason


def test_lengths_must_match():
    with pytest.raises(ValueError, match="same length"):
        pearson([1, 2, 3], [1, 2])
