"""Run-ranking agreement between two judges: a hand-computed case, the edges, and the vectorised
figures against scipy on the same vectors."""

import numpy as np
import pytest
from scipy.stats import kendalltau, ttest_rel

from evaluation.judge_report.method.ranking_agreement import (
    Bootstrap,
    ranking_agreement,
    tau_b_columns,
)
from evaluation.judge_report.method.tau_ap import tau_ap

RUNS = ["r1", "r2", "r3"]
# A: r1 0.8 > r2 0.6 > r3 0.3; B: r2 0.7 > r1 0.5 > r3 0.2.
A = np.array([[0.9, 0.7], [0.5, 0.7], [0.2, 0.4]])
B = np.array([[0.6, 0.4], [0.7, 0.7], [0.1, 0.3]])
NO_BOOT = Bootstrap(resamples=0)
# The hand-computed cases have 2 or 3 runs: too few to measure by default (see
# test_fewer_than_four_runs_are_not_measured), so they lift the floor to check the figures.
FEW = 2


def test_hand_computed_case():
    result = ranking_agreement(RUNS, A, B, NO_BOOT, min_runs=FEW)
    assert result.n_runs == 3 and result.n_topics == 2
    assert result.mean_a == pytest.approx([0.8, 0.6, 0.3])
    assert result.mean_b == pytest.approx([0.5, 0.7, 0.2])
    # One discordant pair of three: (2 - 1) / 3.
    assert result.kendall_tau == pytest.approx(1 / 3)
    # A's list r1, r2, r3 against B: C(2) = 0 (B has r2 above r1), C(3) = 2: 2/2 * (0 + 1) - 1.
    assert result.tau_ap == pytest.approx(0.0)
    assert result.truth == "b"
    # Topic 1 orders like the means; topic 2 ties r1 and r2 under A: tau-b = 2 / sqrt(2 * 3).
    assert result.per_topic_tau == pytest.approx([1 / 3, 2 / np.sqrt(6)])
    assert result.per_topic_summary.n_defined == 2
    assert result.per_topic_summary.median == pytest.approx((1 / 3 + 2 / np.sqrt(6)) / 2)
    (swap,) = result.swaps
    assert (swap.first, swap.second) == ("r1", "r2")
    assert swap.diff_a == pytest.approx(0.2) and swap.diff_b == pytest.approx(-0.2)
    # Differences over topics: A [0.4, 0.0] -> t = 1, df 1, p = 0.5; B [-0.1, -0.3] -> t = -2.
    assert swap.p_a == pytest.approx(0.5)
    assert swap.p_b == pytest.approx(ttest_rel(B[0], B[1]).pvalue)
    assert swap.p_b == pytest.approx(0.2952, abs=1e-4)
    assert not swap.significant_a and not swap.significant_b


def test_truth_a_ranks_b_against_a():
    result = ranking_agreement(RUNS, A, B, NO_BOOT, truth="a", min_runs=FEW)
    assert result.tau_ap == pytest.approx(tau_ap(result.mean_b, result.mean_a))
    assert result.kendall_tau == pytest.approx(1 / 3)


def test_identical_judges_agree_perfectly():
    rng = np.random.default_rng(0)
    scores = rng.random((6, 8))
    result = ranking_agreement([f"r{i}" for i in range(6)], scores, scores, Bootstrap(200))
    assert result.kendall_tau == pytest.approx(1.0)
    assert result.tau_ap == pytest.approx(1.0)
    assert result.kendall_tau_ci.as_list() == pytest.approx([1.0, 1.0])
    assert result.swaps == []
    assert np.allclose(result.per_topic_tau, 1.0)


def test_reversed_judges_disagree_perfectly():
    scores = np.array([[0.9, 0.8], [0.6, 0.5], [0.3, 0.1], [0.2, 0.0]])
    result = ranking_agreement(list("abcd"), scores, 1 - scores, Bootstrap(100))
    assert result.kendall_tau == pytest.approx(-1.0)
    assert result.tau_ap == pytest.approx(-1.0)
    assert result.kendall_tau_ci.as_list() == pytest.approx([-1.0, -1.0])
    assert len(result.swaps) == 6
    assert np.allclose(result.per_topic_tau, -1.0)


def test_two_runs():
    a = np.array([[0.5, 0.6, 0.7], [0.1, 0.2, 0.3]])
    agree = ranking_agreement(["x", "y"], a, a + 0.1, NO_BOOT, min_runs=FEW)
    swapped = ranking_agreement(["x", "y"], a, a[::-1], NO_BOOT, min_runs=FEW)
    assert agree.kendall_tau == pytest.approx(1.0) and agree.tau_ap == pytest.approx(1.0)
    assert swapped.kendall_tau == pytest.approx(-1.0) and swapped.tau_ap == pytest.approx(-1.0)
    (swap,) = swapped.swaps
    # Differences are 0.4 on every topic under both: no spread, t infinite, p = 0.
    assert swap.significant_a and swap.significant_b


def test_fewer_than_four_runs_are_not_measured():
    """Two runs give tau +1 or -1 whatever the judges: no coefficient is printed, the reason
    is, and the runs' scores and swaps are kept."""
    a = np.array([[0.5, 0.6, 0.7], [0.1, 0.2, 0.3]])
    for runs, x, y in ((["x", "y"], a, a[::-1]), (RUNS, A, B)):
        result = ranking_agreement(runs, x, y, Bootstrap(50))
        assert result.kendall_tau is None and result.kendall_tau_ci is None
        assert result.tau_ap is None and result.tau_ap_ci is None
        assert result.tau_ap_symmetric is None
        assert np.isnan(result.per_topic_tau).all()
        assert result.per_topic_summary.n_defined == 0
        n = len(runs)
        assert result.not_measurable == (
            f"run-ranking agreement is not measurable with {n} runs (needs at least 4)"
        )
        assert result.swaps  # the pairs the judges order differently are still listed
    four = np.array([[0.9, 0.8], [0.6, 0.5], [0.3, 0.1], [0.2, 0.0]])
    measured = ranking_agreement(list("abcd"), four, four, NO_BOOT)
    assert measured.not_measurable == "" and measured.kendall_tau == pytest.approx(1.0)


def test_all_tied_is_undefined_not_zero():
    tied = np.full((3, 4), 0.5)
    other = np.arange(12.0).reshape(3, 4)
    result = ranking_agreement(RUNS, tied, other, Bootstrap(50), min_runs=FEW)
    assert result.kendall_tau is None and result.tau_ap is None
    assert result.kendall_tau_ci is None and result.tau_ap_ci is None
    assert result.per_topic_summary.n_defined == 0 and result.per_topic_summary.mean is None
    assert result.swaps == []  # a tie is no swap


def test_one_topic_has_no_interval_and_no_test():
    a, b = np.array([[0.3], [0.2], [0.1]]), np.array([[0.1], [0.3], [0.2]])
    result = ranking_agreement(RUNS, a, b, Bootstrap(500), min_runs=FEW)
    assert result.n_topics == 1
    assert result.kendall_tau == pytest.approx(kendalltau(a[:, 0], b[:, 0]).statistic)
    assert result.kendall_tau_ci is None and result.tau_ap_ci is None
    assert result.swaps and all(s.p_a is None and not s.significant_a for s in result.swaps)


def test_vectorised_tau_b_is_scipys():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 4, (7, 30)).astype(float)  # ties on purpose
    y = rng.integers(0, 4, (7, 30)).astype(float)
    ours = tau_b_columns(x, y)
    for c in range(30):
        expected = kendalltau(x[:, c], y[:, c]).statistic
        if np.isnan(expected):
            assert np.isnan(ours[c])
        else:
            assert ours[c] == pytest.approx(expected)


def test_bootstrap_matches_a_plain_scipy_loop():
    rng = np.random.default_rng(5)
    truth = rng.random(8)
    a = truth[:, None] + rng.normal(0, 0.3, (8, 12))
    b = truth[:, None] + rng.normal(0, 0.3, (8, 12))
    boot = Bootstrap(resamples=300, seed=11, level=0.9)
    result = ranking_agreement([f"r{i}" for i in range(8)], a, b, boot)
    draws = np.random.default_rng(11).multinomial(12, np.full(12, 1 / 12), size=300)
    taus = [kendalltau(a @ w / 12, b @ w / 12).statistic for w in draws]
    taps = [tau_ap(a @ w / 12, b @ w / 12) for w in draws]
    assert result.kendall_tau_ci.as_list() == pytest.approx(np.percentile(taus, [5, 95]))
    assert result.tau_ap_ci.as_list() == pytest.approx(np.percentile(taps, [5, 95]))
    low, high = result.kendall_tau_ci.as_list()
    assert low <= result.kendall_tau <= high
    again = ranking_agreement([f"r{i}" for i in range(8)], a, b, boot)
    assert again.kendall_tau_ci == result.kendall_tau_ci


def test_swaps_carry_scipys_paired_t_test():
    rng = np.random.default_rng(2)
    a = rng.random((5, 10))
    b = rng.random((5, 10))
    names = list("vwxyz")
    result = ranking_agreement(names, a, b, NO_BOOT, alpha=0.2)
    assert result.swaps
    for swap in result.swaps:
        i, j = names.index(swap.first), names.index(swap.second)
        assert a[i].mean() > a[j].mean() and b[i].mean() < b[j].mean()
        assert swap.p_a == pytest.approx(ttest_rel(a[i], a[j]).pvalue)
        assert swap.p_b == pytest.approx(ttest_rel(b[i], b[j]).pvalue)
        assert swap.significant_a == (swap.p_a < 0.2)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least 2 runs"):
        ranking_agreement(["only"], A[:1], B[:1], NO_BOOT)
    with pytest.raises(ValueError, match="every run needs a score"):
        ranking_agreement(RUNS, np.where(A > 0.8, np.nan, A), B, NO_BOOT)
    with pytest.raises(ValueError, match="run names"):
        ranking_agreement(["r1", "r2"], A, B, NO_BOOT)
