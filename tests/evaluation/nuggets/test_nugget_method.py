"""The nugget scores on hand-computed answers, and the attribution on a hand-made topic with one
vital nugget in each category."""

import pytest
from statsmodels.stats.proportion import proportion_confint

from evaluation.nuggets.method.attribution import (
    CATEGORIES,
    DELIVERED,
    GENERATION_DROP,
    RETRIEVAL_MISS,
    UNSUPPORTED,
    NuggetEvidence,
    attribute,
    category_counts,
    is_stated,
    wilson_interval,
)
from evaluation.nuggets.method.scores import NuggetScores, mean_scores, topic_scores


def test_scores_of_a_mixed_answer_by_hand():
    # vital: support, partial, not; okay: support, partial.
    scores = topic_scores(
        ["vital", "vital", "vital", "okay", "okay"],
        ["support", "partial_support", "not_support", "support", "partial_support"],
    )
    assert scores.strict_vital == pytest.approx(1 / 3)
    assert scores.strict_all == pytest.approx(2 / 5)
    assert scores.vital == pytest.approx(1.5 / 3)
    assert scores.all == pytest.approx(3 / 5)


def test_a_topic_without_vital_nuggets_scores_zero_on_the_vital_scores():
    scores = topic_scores(["okay", "okay"], ["support", "support"])
    assert scores == NuggetScores(strict_vital=0.0, strict_all=1.0, vital=0.0, all=1.0)


def test_a_topic_without_nuggets_scores_zero():
    assert topic_scores([], []) == NuggetScores(0.0, 0.0, 0.0, 0.0)


def test_partial_support_counts_half_outside_the_strict_scores_only():
    scores = topic_scores(["vital", "okay"], ["partial_support", "partial_support"])
    assert (scores.strict_vital, scores.strict_all) == (0.0, 0.0)
    assert (scores.vital, scores.all) == (0.5, 0.5)


def test_unknown_labels_and_ragged_input_are_refused():
    with pytest.raises(ValueError, match="unknown assignment"):
        topic_scores(["vital"], ["supported"])
    with pytest.raises(ValueError, match="unknown importance"):
        topic_scores(["must"], ["support"])
    with pytest.raises(ValueError, match="one assignment per nugget"):
        topic_scores(["vital", "okay"], ["support"])


def test_means_over_topics_include_zero_topics():
    first = NuggetScores(1.0, 0.5, 1.0, 0.75)
    second = NuggetScores(0.0, 0.5, 0.0, 0.25)  # e.g. a topic without vital nuggets
    assert mean_scores([first, second]) == NuggetScores(0.5, 0.5, 0.5, 0.5)
    assert mean_scores([]) is None


def test_one_vital_nugget_in_each_category():
    # A hand-made topic: nugget 1 is in no passage at all, nugget 2 is in the top k but the
    # answer leaves it out, nugget 3 is stated with a citation that does not support it,
    # nugget 4 is stated and its cited passage supports it.
    topic = {
        1: ("not_support", False, False),
        2: ("not_support", False, True),
        3: ("support", False, True),
        4: ("partial_support", True, True),
    }
    categories = {
        nugget: attribute(NuggetEvidence(is_stated(a), cited, retrieved))
        for nugget, (a, cited, retrieved) in topic.items()
    }
    assert categories == {
        1: RETRIEVAL_MISS,
        2: GENERATION_DROP,
        3: UNSUPPORTED,
        4: DELIVERED,
    }
    assert category_counts(categories.values()) == dict.fromkeys(CATEGORIES, 1)


def test_a_cited_passage_outside_the_top_k_makes_a_drop_not_a_miss():
    assert attribute(NuggetEvidence(False, True, False)) == GENERATION_DROP


def test_counts_list_every_category_and_refuse_unknown_ones():
    assert category_counts([DELIVERED, DELIVERED]) == {
        RETRIEVAL_MISS: 0,
        GENERATION_DROP: 0,
        UNSUPPORTED: 0,
        DELIVERED: 2,
    }
    assert list(category_counts([])) == list(CATEGORIES)
    with pytest.raises(ValueError):
        category_counts(["lost"])


def test_wilson_interval_by_hand_and_against_statsmodels():
    # 0 of 10: the upper bound is z^2/n / (1 + z^2/n) = 0.2775 at 95%.
    interval = wilson_interval(0, 10)
    assert interval.share == 0.0 and interval.low == 0.0
    assert interval.high == pytest.approx(0.27753, abs=1e-5)
    for count, total in ((3, 10), (7, 7), (1, 40)):
        low, high = proportion_confint(count, total, method="wilson")
        interval = wilson_interval(count, total)
        assert (interval.low, interval.high) == pytest.approx((low, high))
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        wilson_interval(5, 4)
