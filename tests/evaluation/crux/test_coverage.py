"""Answerable set, context/report coverage and missing-judgment counting (METHODS section 1)."""

import numpy as np
import pytest

from evaluation.crux.method.coverage import (
    REASONS,
    Status,
    answerable_set,
    context_coverage,
    missing_judgments,
    report_coverage,
    topic_coverage,
    topic_report_coverage,
)
from evaluation.crux.method.crux_ratings import (
    OUTSIDE,
    RatingsBatch,
    TopicRatings,
    stack_contexts,
    top_k,
)

NAN = np.nan

# tau = 3. Required passages p0, p1. Question q4 is a placeholder (no such question).
#            q0   q1   q2   q3   q4
RATINGS = [
    [5.0, 0.0, 2.0, 0.0, 5.0],  # p0 required
    [0.0, 4.0, 0.0, 1.0, 5.0],  # p1 required
    [3.0, 3.0, 0.0, 0.0, 5.0],  # p2
    [0.0, 0.0, 4.0, 0.0, 5.0],  # p3
]
REQUIRED = [True, True, False, False]
PLACEHOLDER = [False, False, False, False, True]


def base_topic(ratings=RATINGS, required=REQUIRED) -> TopicRatings:
    return TopicRatings(np.array(ratings), np.array(required), np.array(PLACEHOLDER))


def test_answerable_set_uses_required_passages_only():
    # q0: max(5, 0) = 5 >= 3 yes; q1: max(0, 4) = 4 yes; q2: max(2, 0) = 2 no (p3's 4 does not
    # count: p3 is not required); q3: max(0, 1) no; q4 is a placeholder -> A = {q0, q1}.
    answerable = answerable_set(RatingsBatch.single(base_topic()), tau=3)
    assert answerable.mask[0].tolist() == [True, True, False, False, False]
    assert answerable.size.tolist() == [2]
    assert answerable.missing.tolist() == [0]


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ([2], 1.0),  # p2 answers q0 (3) and q1 (3): 2/2
        ([3], 0.0),  # p3 answers only q2, which is not answerable: 0/2
        ([1, OUTSIDE], 0.5),  # p1 answers q1; another topic's passage rates 0: 1/2
        ([OUTSIDE, OUTSIDE], 0.0),  # only other topics' passages: 0/2
        ([], 0.0),  # empty context answers nothing: 0/2
        ([3, 0, 1], 1.0),  # q0 by p0, q1 by p1: 2/2
    ],
)
def test_context_coverage_hand_computed(context, expected):
    cov = topic_coverage(base_topic(), context, tau=3)
    assert cov.value == pytest.approx(expected)
    assert cov.answerable == 2
    assert cov.reason is None
    assert cov.missing == 0


def test_threshold_changes_both_answerable_set_and_coverage():
    # tau = 4: A = {q0 (5), q1 (4)}; p2 rates 3, 3 -> 0/2; p0 answers q0 -> 1/2.
    assert topic_coverage(base_topic(), [2], tau=4).value == 0.0
    assert topic_coverage(base_topic(), [0], tau=4).value == 0.5
    # tau = 5: A = {q0} only; p1 rates 0 on q0 -> 0/1; p0 rates 5 -> 1/1.
    assert topic_coverage(base_topic(), [1], tau=5).answerable == 1
    assert topic_coverage(base_topic(), [1], tau=5).value == 0.0
    assert topic_coverage(base_topic(), [0], tau=5).value == 1.0


def test_all_ratings_equal():
    # All 3s: every question answerable (|A| = 4 real questions) and any passage covers all.
    topic = TopicRatings(np.full((3, 5), 3.0), np.array([True, False, False]), PLACEHOLDER)
    assert topic_coverage(topic, [2], tau=3).value == 1.0
    assert topic_coverage(topic, [2], tau=3).answerable == 4
    # All 2s: nothing answerable -> undefined.
    topic = TopicRatings(np.full((3, 5), 2.0), np.array([True, True, True]), PLACEHOLDER)
    assert topic_coverage(topic, [0, 1, 2], tau=3).value is None


def test_several_required_passages_each_needed():
    # Three required passages, each the only one answering its question: A = {q0, q1, q2}.
    # A context with two of them covers 2/3.
    topic = TopicRatings(np.eye(3) * 5, np.ones(3, bool))
    assert topic_coverage(topic, [0, 2], tau=3).value == pytest.approx(2 / 3)
    assert topic_coverage(topic, [2, 1, 0], tau=3).value == 1.0


def test_placeholder_questions_are_in_no_denominator():
    # Every passage rates 5 on the placeholder q4; still |A| = 2, and a context answering only
    # q4 covers nothing.
    topic = base_topic()
    assert topic_coverage(topic, [3], tau=3).answerable == 2


def test_report_coverage_treats_report_as_one_passage():
    # Report ratings q0..q4 = 4, 2, 5, 0, 0: answers q0 (in A), q2 (not in A) -> 1/2.
    cov = topic_report_coverage(base_topic(), [4, 2, 5, 0, 0], tau=3)
    assert cov.value == 0.5
    assert cov.covered == 1


def test_empty_answerable_set_is_undefined_not_zero():
    # No required passage -> A is empty -> coverage undefined, with the reason.
    topic = base_topic(required=[False] * 4)
    cov = topic_coverage(topic, [2], tau=3)
    assert cov.value is None and cov.lower is None and cov.upper is None
    assert cov.reason == REASONS[Status.NO_ANSWERABLE]
    # Required passages exist but none reaches tau = 5 on a real question.
    topic = base_topic(ratings=np.minimum(np.array(RATINGS), 4.0))
    cov = topic_coverage(topic, [0, 1, 2, 3], tau=5)
    assert cov.value is None and cov.answerable == 0


def test_unjudged_rating_on_an_already_covered_question_is_counted_but_harmless():
    ratings = np.array(RATINGS)
    ratings[2, 1] = NAN  # p2 unjudged on q1; p1 covers q1 anyway
    cov = topic_coverage(base_topic(ratings), [2, 1], tau=3)
    assert cov.value == 1.0
    assert cov.missing == 1
    assert cov.undetermined == 0


def test_unjudged_rating_that_decides_coverage_makes_it_undefined_with_bounds():
    ratings = np.array(RATINGS)
    ratings[2, 1] = NAN  # context [p2]: q0 covered (3); q1 unknown
    cov = topic_coverage(base_topic(ratings), [2], tau=3)
    assert cov.value is None
    assert cov.reason == REASONS[Status.UNJUDGED_CONTEXT]
    assert (cov.lower, cov.upper) == (0.5, 1.0)  # 1/2 if it does not answer, 2/2 if it does
    assert (cov.missing, cov.undetermined) == (1, 1)
    # The caller may ask for unjudged = 0: the value is then the lower bound.
    assert topic_coverage(base_topic(ratings), [2], tau=3, missing_as_zero=True).value == 0.5


def test_unjudged_rating_on_unanswerable_question_is_not_missing():
    ratings = np.array(RATINGS)
    ratings[3, 3] = NAN  # q3 is not answerable: nobody needs this judgment
    cov = topic_coverage(base_topic(ratings), [3], tau=3)
    assert cov.value == 0.0
    assert cov.missing == 0


def test_unjudged_required_rating_makes_answerable_set_undetermined():
    ratings = np.array(RATINGS)
    ratings[0, 2] = NAN  # p0 on q2 unjudged: q2 may or may not be answerable
    batch = RatingsBatch.single(base_topic(ratings))
    answerable = answerable_set(batch, tau=3)
    assert answerable.undetermined[0].tolist() == [False, False, True, False, False]
    assert answerable.missing.tolist() == [1]
    cov = topic_coverage(base_topic(ratings), [2], tau=3)
    assert cov.value is None
    assert cov.reason == REASONS[Status.UNJUDGED_ORACLE]
    # With missing_as_zero the judged answerable set {q0, q1} is used: p2 covers both.
    assert topic_coverage(base_topic(ratings), [2], tau=3, missing_as_zero=True).value == 1.0


def test_unjudged_required_rating_on_answerable_question_is_not_missing():
    ratings = np.array(RATINGS)
    ratings[1, 0] = NAN  # q0 is answerable through p0 already
    answerable = answerable_set(RatingsBatch.single(base_topic(ratings)), tau=3)
    assert answerable.missing.tolist() == [0]
    assert not answerable.undetermined.any()


def test_missing_judgments_lists_the_pairs_to_judge():
    ratings = np.array(RATINGS)
    ratings[2, 0] = NAN
    ratings[2, 1] = NAN
    ratings[3, 1] = NAN
    ratings[3, 3] = NAN  # q3 not answerable: not listed
    batch = RatingsBatch.single(base_topic(ratings))
    answerable = answerable_set(batch, tau=3)
    pairs = missing_judgments(batch, stack_contexts([[3, OUTSIDE, 2]]), answerable)
    assert pairs == [[(2, 0), (2, 1), (3, 1)]]
    cov = context_coverage(batch, stack_contexts([[3, OUTSIDE, 2]]), answerable, tau=3)
    assert cov.missing.tolist() == [3]
    assert cov.undetermined.tolist() == [2]
    assert cov.lower.tolist() == [0.0] and cov.upper.tolist() == [1.0]


def test_batch_equals_per_topic_on_random_topics():
    rng = np.random.default_rng(7)
    topics, contexts = [], []
    for _ in range(40):
        p, q = rng.integers(1, 12), rng.integers(1, 8)
        ratings = rng.integers(0, 6, size=(p, q)).astype(float)
        ratings[rng.random((p, q)) < 0.15] = NAN
        topics.append(TopicRatings(ratings, rng.random(p) < 0.5, rng.random(q) < 0.2))
        context = list(rng.permutation(p)[: rng.integers(0, p + 1)])
        contexts.append(context + [OUTSIDE] * int(rng.integers(0, 3)))
    batch = RatingsBatch.stack(topics)
    answerable = answerable_set(batch, tau=3)
    for flag in (False, True):
        result = context_coverage(batch, stack_contexts(contexts), answerable, 3, flag)
        for t, topic in enumerate(topics):
            assert result.topic(t) == topic_coverage(topic, contexts[t], 3, flag)


def test_batch_report_coverage_shape_and_values():
    topics = [base_topic(), base_topic(required=[False] * 4)]
    batch = RatingsBatch.stack(topics)
    answerable = answerable_set(batch, tau=3)
    reports = np.array([[4, 4, 0, 0, 0], [5, 5, 5, 5, 5]], dtype=float)
    result = report_coverage(reports, answerable, tau=3)
    assert result.value[0] == 1.0
    assert np.isnan(result.value[1])
    assert result.status.tolist() == [Status.OK, Status.NO_ANSWERABLE]
    with pytest.raises(ValueError, match="report ratings must have shape"):
        report_coverage(reports[:, :3], answerable, tau=3)
    with pytest.raises(ValueError, match="0..5"):
        report_coverage(reports + 3, answerable, tau=3)


@pytest.mark.parametrize(
    ("context", "message"),
    [([4], "position 0 names passage row 4"), ([1, -2], "row -2"), ([1, 2, 1], "twice")],
)
def test_bad_context_is_a_clear_error(context, message):
    with pytest.raises(ValueError, match=message):
        topic_coverage(base_topic(), context, tau=3)


def test_bad_inputs_are_rejected():
    with pytest.raises(ValueError, match="tau must lie in"):
        topic_coverage(base_topic(), [0], tau=0)
    with pytest.raises(ValueError, match="0..5"):
        TopicRatings(np.array([[6.0]]))
    with pytest.raises(ValueError, match="required must have shape"):
        TopicRatings(np.array([[1.0, 2.0]]), required=np.array([True, False]))
    with pytest.raises(ValueError, match="k must be >= 0"):
        stack_contexts([[0]], k=-1)


def test_top_k_per_topic():
    # k = |O| differs per topic: 1 for the first, 3 for the second.
    contexts = np.array([[4, 5, 6], [7, 8, 9]])
    assert top_k(contexts, np.array([1, 3])).tolist() == [[4, OUTSIDE, OUTSIDE], [7, 8, 9]]
    assert top_k(contexts, 2).tolist() == [[4, 5, OUTSIDE], [7, 8, OUTSIDE]]
    with pytest.raises(ValueError, match="k must be >= 0"):
        top_k(contexts, -1)


def test_stack_contexts_cuts_and_pads():
    assert stack_contexts([[3, 1, 2], [0]], k=2).tolist() == [[3, 1], [0, OUTSIDE]]
    assert stack_contexts([[], [5, 6]]).tolist() == [[OUTSIDE, OUTSIDE], [5, 6]]


def test_the_pure_tau_check_has_the_declared_bounds():
    """The metrics refuse exactly what the pages, commands and API refuse (one declaration)."""
    from crux_app.read_parameters import TAU

    for tau in (TAU.minimum, TAU.maximum, TAU.default):
        topic_coverage(base_topic(), [0], tau=tau)
    for tau in (TAU.minimum - 0.1, TAU.maximum + 0.1):
        with pytest.raises(ValueError, match="tau must lie in"):
            topic_coverage(base_topic(), [0], tau=tau)
