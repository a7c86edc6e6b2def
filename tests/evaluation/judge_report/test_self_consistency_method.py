"""Test-retest agreement of a judge's sampled repeats, and the human figures beside it: hand-
computed Krippendorff alphas, the krippendorff package on the same tables, and edge cases."""

import krippendorff
import numpy as np
import pytest

from crux_app.vocabulary import RepeatVersion, parse_repeat_version, repeat_version
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.method.label_agreement import Stat
from evaluation.judge_report.method.self_consistency import (
    FEWER_THAN_TWO_PEOPLE,
    FEWER_THAN_TWO_REPEATS,
    NO_PEOPLE,
    human_human_alpha,
    human_judge_alpha,
    judge_person_units,
    retest_agreement,
    spread_verdict,
)

nan = np.nan
NO_INTERVALS = Bootstrap(n_resamples=0)


def test_two_repeats_on_two_categories_match_the_hand_computed_alpha():
    # Coincidences: o00 = 2, o11 = 2, o01 = o10 = 1; n0 = n1 = 3, n = 6.
    # alpha = 1 - (n - 1) * (o01 + o10) / (2 * n0 * n1) = 1 - 5 * 2 / 18 = 4/9.
    ratings = np.array([[0, 0], [1, 1], [0, 1]], float)
    result = retest_agreement(ratings, (0, 1), NO_INTERVALS)
    assert result.n_repeats == 2 and result.n_items == 3
    assert result.alpha.value == pytest.approx(4 / 9)
    assert result.agreement.value == pytest.approx(2 / 3)
    assert result.all_agree.value == pytest.approx(2 / 3)
    assert result.alpha.statistic == "test_retest_alpha"


def test_ordinal_alpha_uses_ordinal_distances():
    # Units (0, 2), (1, 1), (2, 2): n0 = 1, n1 = 2, n2 = 3. Ordinal delta^2(c, k) =
    # (sum of n_g for g in c..k - (n_c + n_k) / 2)^2: d01 = 1.5^2, d02 = 4^2, d12 = 2.5^2.
    # D_o = 2 * 16 = 32; D_e = 2 * (1*2*2.25 + 1*3*16 + 2*3*6.25) = 180;
    # alpha = 1 - (n - 1) * D_o / D_e = 1 - 5 * 32 / 180 = 1/9.
    ratings = np.array([[0, 2], [1, 1], [2, 2]], float)
    result = retest_agreement(ratings, (0, 1, 2, 3, 4, 5), NO_INTERVALS)
    assert result.alpha.value == pytest.approx(1 / 9)
    expected = krippendorff.alpha(
        reliability_data=ratings.T, value_domain=[0, 1, 2, 3, 4, 5], level_of_measurement="ordinal"
    )
    assert result.alpha.value == pytest.approx(expected)


def test_items_with_fewer_than_two_labels_are_left_out():
    ratings = np.array([[0, 0], [1, nan], [1, 1], [0, 1], [nan, nan]], float)
    result = retest_agreement(ratings, (0, 1), NO_INTERVALS)
    assert result.n_items == 3
    assert result.alpha.value == pytest.approx(4 / 9)


def test_three_repeats_count_agreeing_pairs_and_unanimous_items():
    # Item 1: pairs (0,0) agree, (0,1) twice not: 1/3. Item 2: all agree: 1. Mean 2/3.
    ratings = np.array([[0, 0, 1], [1, 1, 1]], float)
    result = retest_agreement(ratings, range(6), NO_INTERVALS)
    assert result.agreement.value == pytest.approx(2 / 3)
    assert result.all_agree.value == pytest.approx(1 / 2)
    expected = krippendorff.alpha(
        reliability_data=ratings.T, value_domain=list(range(6)), level_of_measurement="ordinal"
    )
    assert result.alpha.value == pytest.approx(expected)


def test_one_repeat_has_no_test_retest_figure():
    result = retest_agreement(np.array([[0], [3]], float), range(6))
    assert result.n_repeats == 1 and result.n_items == 0
    for stat in (result.alpha, result.agreement, result.all_agree):
        assert stat.value is None and stat.undefined == FEWER_THAN_TWO_REPEATS


def test_repeats_that_all_agree_on_one_label_have_no_alpha_but_full_agreement():
    result = retest_agreement(np.full((4, 3), 2.0), range(6))
    assert result.alpha.value is None
    assert result.alpha.undefined == "a single category: every label is 2"
    assert result.agreement.value == 1.0 and result.all_agree.value == 1.0
    assert result.agreement.ci_low == 1.0 and result.agreement.ci_high == 1.0


def test_bootstrap_intervals_resample_items_and_bracket_the_estimate():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 6, size=60)
    noise = rng.integers(-1, 2, size=(60, 3))
    ratings = np.clip(truth[:, None] + noise, 0, 5).astype(float)
    result = retest_agreement(ratings, range(6), Bootstrap(n_resamples=500, seed=1))
    alpha = result.alpha
    assert alpha.ci_low < alpha.value < alpha.ci_high
    assert alpha.n == 60
    again = retest_agreement(ratings, range(6), Bootstrap(n_resamples=500, seed=1)).alpha
    assert (again.ci_low, again.ci_high) == (alpha.ci_low, alpha.ci_high)  # seeded
    assert retest_agreement(ratings, range(6), NO_INTERVALS).alpha.ci_low is None


def test_human_human_alpha_needs_two_people():
    humans = np.array([[0, 0], [1, 1], [0, 1]], float)
    assert human_human_alpha(humans, (0, 1), NO_INTERVALS).value == pytest.approx(4 / 9)
    one = human_human_alpha(humans[:, :1], (0, 1))
    assert one.value is None and one.undefined == FEWER_THAN_TWO_PEOPLE


def test_the_judge_meets_each_person_in_units_of_two_labels():
    judge = np.array([0, 1, nan])
    humans = np.array([[0, 1], [1, nan], [1, 1]], float)
    units = judge_person_units(judge, humans)
    assert units.tolist() == [[0, 0], [1, 0], [1, 1]]  # [person, judge]; item 3: no judge label
    # The same coincidences as the first hand-computed case: 4/9.
    assert human_judge_alpha(judge, humans, (0, 1), NO_INTERVALS).value == pytest.approx(4 / 9)
    nobody = human_judge_alpha(judge, np.zeros((3, 0)), (0, 1))
    assert nobody.value is None and nobody.undefined == NO_PEOPLE
    with pytest.raises(ValueError, match="do not match"):
        judge_person_units(judge[:2], humans)


def test_repeat_versions_name_temperature_and_seed_and_read_back():
    assert repeat_version("crux-rubric-v1", 0.7, 3) == "crux-rubric-v1~t0.7-s3"
    assert repeat_version("umbrela-v1", 1.0, 0) == "umbrela-v1~t1-s0"
    assert parse_repeat_version("umbrela-v1~t1-s0") == RepeatVersion("umbrela-v1", 1.0, 0)
    assert parse_repeat_version("crux-rubric-v1~t0.25-s12") == RepeatVersion(
        "crux-rubric-v1", 0.25, 12
    )
    for greedy in ("crux-rubric-v1", "crux-rubric-v1+dist", "cosine-v1", "x~t0.7"):
        assert parse_repeat_version(greedy) is None


@pytest.mark.parametrize(
    ("base", "temperature", "seed", "message"),
    [
        ("v1", 0.0, 1, "temperature must lie in"),
        ("v1", 2.5, 1, "temperature must lie in"),
        ("v1", 0.333, 1, "at most 2 decimals"),
        ("v1", 0.7, -1, "seed must be an integer >= 0"),
        ("v1", 0.7, True, "seed must be an integer >= 0"),
        ("v1~t0.7-s1", 0.7, 2, "is not a greedy judge's prompt version"),
        ("", 0.7, 2, "is not a greedy judge's prompt version"),
    ],
)
def test_bad_repeat_settings_are_refused(base, temperature, seed, message):
    with pytest.raises(ValueError, match=message):
        repeat_version(base, temperature, seed)


def _stat(value, low=None, high=None, reason=None) -> Stat:
    return Stat("x", value, low, high, 10, reason)


@pytest.mark.parametrize(
    ("retest", "people", "code", "within"),
    [
        (_stat(0.9, 0.85, 0.95), _stat(0.5, 0.4, 0.6), "narrower", True),
        (_stat(0.55, 0.45, 0.65), _stat(0.5, 0.4, 0.6), "similar", True),
        (_stat(0.2, 0.1, 0.3), _stat(0.5, 0.4, 0.6), "wider", False),
        (_stat(0.39), _stat(0.5, 0.4, 0.6), "wider", False),  # no interval: the point
        (_stat(None, reason="one repeat"), _stat(0.5, 0.4, 0.6), "unknown", None),
        (_stat(0.9, 0.8, 1.0), _stat(None, reason="one person"), "unknown", None),
    ],
)
def test_the_verdict_compares_the_judges_spread_with_peoples(retest, people, code, within):
    verdict = spread_verdict(retest, people)
    assert (verdict.code, verdict.within) == (code, within)
    if code == "wider":
        assert verdict.sentence.startswith("Outside the spread of people")
    elif within:
        assert verdict.sentence.startswith("Within the spread of people")
    if code == "similar":
        assert "0.550 [0.450, 0.650]" in verdict.sentence
        assert "0.500 [0.400, 0.600]" in verdict.sentence
    if retest.value is None:
        assert "(one repeat)" in verdict.sentence
    if people.value is None and retest.value is not None:
        assert "(one person)" in verdict.sentence
