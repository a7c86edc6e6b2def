"""Prediction-powered estimates against ppi-python on the same vectors, their edges, and the check
that the labelled topics look like a random sample."""

import numpy as np
import pytest
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

from evaluation.judge_report.method.ppi import ppi_estimates, sampling_check


def biased_judge(n_topics: int = 200, n_labelled: int = 40, seed: int = 0):
    """True scores, a judge that adds 0.15 and a little noise, people on a random subset."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.5, 0.2, n_topics)
    judge = truth + 0.15 + rng.normal(0, 0.03, n_topics)
    labelled = np.zeros(n_topics, bool)
    labelled[rng.choice(n_topics, n_labelled, replace=False)] = True
    human = np.where(labelled, truth, np.nan)
    return truth, judge, human, labelled


def test_figures_are_ppi_pythons():
    _, judge, human, labelled = biased_judge()
    result = ppi_estimates(judge, human, level=0.9)
    y, y_hat, y_unl = human[labelled], judge[labelled], judge[~labelled]
    assert result.ppi.value == pytest.approx(float(ppi_mean_pointestimate(y, y_hat, y_unl)[0]))
    low, high = ppi_mean_ci(y, y_hat, y_unl, alpha=0.1)
    assert result.ppi.ci == pytest.approx((float(low[0]), float(high[0])))
    assert result.ppi.n == 40 and result.n_unlabelled == 160
    assert result.human_only.value == pytest.approx(y.mean())
    assert result.human_only.ci == pytest.approx(classical_mean_ci(y, alpha=0.1))
    assert result.judge_only.value == pytest.approx(judge.mean()) and result.judge_only.n == 200
    assert result.judge_only.ci == pytest.approx(classical_mean_ci(judge, alpha=0.1))


def test_a_good_but_biased_judge_is_caught_and_worth_many_labels():
    truth, judge, human, _ = biased_judge()
    result = ppi_estimates(judge, human)
    low, high = result.ppi.ci
    assert low <= truth.mean() <= high
    assert result.judge_biased is True  # judge-only says ~0.65, the truth is ~0.5
    # The judge's errors are nearly constant: PPI is far tighter than 40 labels alone.
    assert result.effective_n > 100
    human_width = np.subtract(*classical_mean_ci(human[np.isfinite(human)], alpha=0.05)[::-1])
    assert result.effective_n == pytest.approx(40 * (human_width / (high - low)) ** 2)


def test_an_unbiased_judge_is_not_flagged():
    rng = np.random.default_rng(4)
    truth = rng.normal(0.5, 0.2, 300)
    judge = truth + rng.normal(0, 0.05, 300)
    human = np.where(rng.random(300) < 0.2, truth, np.nan)
    assert ppi_estimates(judge, human).judge_biased is False


def test_too_few_labelled_or_unlabelled_topics_leave_ppi_undefined():
    judge = np.array([0.2, 0.4, 0.6, 0.8])
    one_label = np.array([0.3, np.nan, np.nan, np.nan])
    result = ppi_estimates(judge, one_label)
    assert result.ppi.value is None and "fewer than 2 topics have both" in result.undefined
    assert result.human_only.value == pytest.approx(0.3) and result.human_only.ci is None
    everything = np.array([0.1, 0.5, 0.5, 0.9])
    result = ppi_estimates(judge, everything)
    assert result.ppi.value is None and result.n_unlabelled == 0
    assert "human-only estimate is all there is" in result.undefined
    assert result.judge_biased is None and result.effective_n is None


def test_a_topic_only_people_labelled_counts_for_human_only():
    judge = np.array([0.2, 0.4, 0.6, 0.8, np.nan])
    human = np.array([0.1, 0.5, np.nan, np.nan, 0.9])
    result = ppi_estimates(judge, human)
    assert result.human_only.n == 3 and result.ppi.n == 2 and result.judge_only.n == 4


def test_no_scores_at_all():
    empty = np.full(3, np.nan)
    result = ppi_estimates(empty, empty)
    assert result.judge_only.value is None and result.human_only.n == 0
    assert result.ppi.value is None


def test_random_labels_pass_the_sampling_check():
    _, judge, _, labelled = biased_judge()
    check = sampling_check(judge, labelled)
    assert check.looks_random is True and check.problems == []
    assert check.n_labelled == 40 and check.p_value is not None


def test_the_first_topics_are_not_a_random_sample():
    _, judge, _, _ = biased_judge()
    first = np.zeros(200, bool)
    first[:40] = True
    check = sampling_check(judge, first)
    assert check.looks_random is False
    assert "first 40 of 200" in check.problems[0]
    last = first[::-1].copy()
    assert "last 40" in sampling_check(judge, last).problems[0]


def test_small_collections_do_not_flag_a_prefix_that_chance_explains():
    # 2 of 5 topics: the first two come up with probability 1/10.
    labelled = np.array([True, True, False, False, False])
    assert sampling_check(np.array([0.1, 0.5, 0.3, 0.4, 0.2]), labelled).looks_random is True


def test_labels_on_the_topics_the_judge_scores_highest_are_flagged():
    _, judge, _, _ = biased_judge()
    hardest = judge > np.quantile(judge, 0.8)
    check = sampling_check(judge, hardest)
    assert check.looks_random is False
    assert "Mann-Whitney" in check.problems[0] and check.p_value < 0.01


def test_nothing_to_check_without_labels_or_with_every_topic_labelled():
    scores = np.array([0.1, 0.2, 0.3])
    assert sampling_check(scores, np.zeros(3, bool)).looks_random is None
    assert sampling_check(scores, np.ones(3, bool)).looks_random is None
