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
    sentence_backed,
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


def test_one_vital_nugget_in_each_category_with_sentence_support():
    # The answer: s0 cites p1 (sentence judge: 2, supports), s1 cites p2 (1, partly), s2 cites
    # p3 (2); the top k is p1..p3; tau 3. Per nugget: assignment, the support judge's ratings.
    sentences = [{"p1": 2}, {"p2": 1}, {"p3": 2}]
    top_k, tau = ["p1", "p2", "p3"], 3
    topic = {
        # p1 is only about n1 (2 < tau), but fully supports s0 that cites it: backed.
        "n1": ("support", {"p1": 2}),
        # p2 is about n2 but only partly supports s1; p3 supports s2 but is not about n2.
        "n2": ("partial_support", {"p2": 2, "p3": 0}),
        # p3 supports n3 and s2, yet the answer does not state n3.
        "n3": ("not_support", {"p3": 4}),
        # no passage the run saw is about n4 (p9 is, outside the run).
        "n4": ("not_support", {"p9": 5}),
    }
    categories = {}
    for nugget, (assignment, ratings) in topic.items():
        supporters = {p for p, r in ratings.items() if r >= tau}
        cited = {p for graded in sentences for p in graded}
        backed = sentence_backed(sentences, ratings)
        categories[nugget] = attribute(
            NuggetEvidence(
                is_stated(assignment),
                bool(cited & supporters),
                bool(set(top_k) & supporters),
                bool(backed),
            )
        )
    assert categories == {
        "n1": DELIVERED,
        "n2": UNSUPPORTED,
        "n3": GENERATION_DROP,
        "n4": RETRIEVAL_MISS,
    }
    assert sentence_backed(sentences, topic["n1"][1]) == {"p1"}
    assert sentence_backed(sentences, topic["n2"][1]) == set()
    # n3's p3 does back a sentence, but an unstated nugget stays a drop: the assignment alone
    # says whether the answer states it.
    assert sentence_backed(sentences, topic["n3"][1]) == {"p3"}


def test_sentence_support_needs_grade_two_and_a_passage_about_the_nugget():
    assert sentence_backed([{"p": 2}], {"p": 1}) == {"p"}
    assert sentence_backed([{"p": 1}], {"p": 5}) == set()  # partly supports the sentence
    assert sentence_backed([{"p": None}], {"p": 5}) == set()  # not graded
    assert sentence_backed([{"p": 2}], {"p": 0}) == set()  # rated, not about the nugget
    assert sentence_backed([{"p": 2}], {}) == set()  # not rated for the nugget
    assert sentence_backed([], {"p": 5}) == set()
    # Sentence grades only move a stated nugget from unsupported to delivered.
    assert attribute(NuggetEvidence(True, False, False, True)) == DELIVERED
    assert attribute(NuggetEvidence(True, False, True, False)) == UNSUPPORTED
    assert attribute(NuggetEvidence(False, False, False, True)) == RETRIEVAL_MISS


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
