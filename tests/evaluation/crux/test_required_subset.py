"""Greedy required-passage selection, redundancy grades, agreement with imported grades."""

import numpy as np
import pytest

from evaluation.crux.method.crux_ratings import RatingsBatch, TopicRatings
from evaluation.crux.method.required_subset import (
    NO_REQUIRED,
    STALLED,
    grade_agreement,
    select_required,
    select_required_batch,
    topic_required_subset,
)

NAN = np.nan

# tau = 3.     q0 q1 q2 q3
HAND = np.array(
    [
        [5, 0, 0, 0],  # p0
        [4, 4, 0, 0],  # p1
        [0, 0, 3, 1],  # p2
        [0, 3, 3, 0],  # p3
        [2, 2, 2, 0],  # p4
    ],
    dtype=float,
)


def test_hand_computed_greedy_and_grades():
    # q3 never reaches 3: answerable = {q0, q1, q2}.
    # Step 0 (uncovered q0..q3): scores = count + 0.1 * [rating > 0 on an uncovered question]:
    #   p0 1.1, p1 2.1, p2 1.1, p3 2.1, p4 0.1 -> first argmax p1; covers q0, q1.
    # Step 1 (uncovered q2, q3): p0 0, p1 0, p2 1.1, p3 1.1, p4 0.1 -> first argmax p2; covers q2.
    # m = max(p1, p2) = [4, 4, 3, 1].
    #   p0 [5, 0, 0, 0]: 5 < 4 fails -> partially redundant (2)
    #   p3 [0, 3, 3, 0]: 3 < 3 fails on q2 -> 2
    #   p4 [2, 2, 2, 0]: 2<4, 2<4, 2<3, 0<1 -> fully redundant (1)
    result = topic_required_subset(TopicRatings(HAND), tau=3)
    assert result.required == [1, 2]
    assert result.grades.tolist() == [2, 3, 3, 2, 1]
    assert result.max_vector.tolist() == [4, 4, 3, 1]
    assert result.answerable.tolist() == [True, True, True, False]
    assert result.reason is None and result.missing == 0


def test_selection_order_follows_the_greedy_not_the_rows():
    # Row 2 answers two questions, rows 0 and 1 one each: row 2 first, then row 0.
    ratings = np.array([[0, 0, 5], [0, 0, 4], [5, 5, 0]], dtype=float)
    result = topic_required_subset(TopicRatings(ratings), tau=3)
    assert result.required == [2, 0]
    # m = [5, 5, 5]; row 1 [0, 0, 4] is strictly below everywhere -> fully redundant.
    assert result.grades.tolist() == [3, 1, 3]


def test_threshold_changes_the_subset():
    # tau = 5: only p0 answers anything (q0) -> required [p0]; m = [5, 0, 0, 0], so no other
    # passage can be strictly below 0 on q1..q3 -> all partially redundant.
    result = topic_required_subset(TopicRatings(HAND), tau=5)
    assert result.required == [0]
    assert result.grades.tolist() == [3, 2, 2, 2, 2]


def test_all_ratings_equal():
    # All 3s: p0 answers everything at step 0 -> the only required passage; the others equal m,
    # never strictly below -> partially redundant.
    result = topic_required_subset(TopicRatings(np.full((3, 4), 3.0)), tau=3)
    assert result.required == [0]
    assert result.grades.tolist() == [3, 2, 2]
    # All 2s below tau: nothing answerable, no required passage, no grades.
    result = topic_required_subset(TopicRatings(np.full((3, 4), 2.0)), tau=3)
    assert result.required == [] and result.grades is None and result.max_vector is None
    assert result.reason == NO_REQUIRED


def test_placeholder_questions_are_ignored():
    # q3 is a placeholder with a 5 on p2: it creates no requirement, and p4's 0 there does not
    # need to be below m.
    ratings = HAND.copy()
    ratings[2, 3] = 5
    placeholder = np.array([False, False, False, True])
    result = topic_required_subset(TopicRatings(ratings, placeholder=placeholder), tau=3)
    assert result.required == [1, 2]
    assert result.grades.tolist() == [2, 3, 3, 2, 1]
    assert result.answerable.tolist() == [True, True, True, False]


def test_unjudged_ratings_never_answer_and_block_full_redundancy():
    ratings = HAND.copy()
    ratings[1, 1] = NAN  # p1 unjudged on q1: p1 now answers q0 only
    ratings[4, 0] = NAN  # p4 unjudged on q0: cannot be proven strictly below m
    # Step 0: p0 1.1, p1 1.1, p2 1.1, p3 2.1 -> p3 (q1, q2). Step 1 (q0, q3): p0 1.1, p1 1.1 ->
    # p0. m = max(p3, p0) = [5, 3, 3, 0].
    result = topic_required_subset(TopicRatings(ratings), tau=3)
    assert result.required == [3, 0]
    assert result.missing == 2
    # p1 [4, nan, 0, 0]: 0 < 0 fails on q3 anyway -> 2; p4 [nan, 2, 2, 0] -> 2.
    assert result.grades.tolist() == [3, 2, 2, 3, 2]
    # Read as 0 on request: p1 [4, 0, 0, 0] and p4 [0, 2, 2, 0] still fail 0 < 0 on q3.
    zero = topic_required_subset(TopicRatings(ratings), tau=3, missing_as_zero=True)
    assert zero.required == [3, 0] and zero.grades.tolist() == [3, 2, 2, 3, 2]


def test_missing_as_zero_can_make_a_passage_fully_redundant():
    # m from p0 = [5, 5]; p1 = [1, nan]: unjudged -> partially (2); as zero [1, 0] -> fully (1).
    ratings = np.array([[5, 5], [1, NAN]], dtype=float)
    assert topic_required_subset(TopicRatings(ratings), 3).grades.tolist() == [3, 2]
    zero = topic_required_subset(TopicRatings(ratings), 3, missing_as_zero=True)
    assert zero.grades.tolist() == [3, 1]


def test_several_required_passages_each_cover_one_question():
    ratings = np.eye(4) * 4  # passage i answers only question i
    result = topic_required_subset(TopicRatings(ratings), tau=3)
    assert result.required == [0, 1, 2, 3]
    assert result.grades.tolist() == [3, 3, 3, 3]


def test_unanswerable_target_stops_instead_of_looping_forever():
    # Asked to cover q1, which no candidate answers: the authors' loop would spin; ours covers
    # q0 (p0), then finds no passage covering anything new, stops and flags the topic.
    ratings = np.array([[5, 0], [0, 2]], dtype=float)[None]
    targets = np.array([[True, True]])
    result = select_required(
        ratings, np.ones((1, 2), bool), np.ones((1, 2), bool), tau=3, targets=targets
    )
    assert result.stalled.tolist() == [True]
    topic = result.topic(0)
    assert topic.required == [0]
    assert topic.reason == STALLED


def test_batch_with_padding_equals_per_topic():
    rng = np.random.default_rng(3)
    topics = []
    for _ in range(30):
        p, q = rng.integers(1, 15), rng.integers(1, 9)
        ratings = rng.integers(0, 6, size=(p, q)).astype(float)
        ratings[rng.random((p, q)) < 0.1] = NAN
        topics.append(TopicRatings(ratings, placeholder=rng.random(q) < 0.15))
    batch = select_required_batch(RatingsBatch.stack(topics), tau=3)
    for t, topic in enumerate(topics):
        single = topic_required_subset(topic, tau=3)
        padded = batch.topic(t, topic.ratings.shape[0])
        assert padded.required == single.required
        assert padded.reason == single.reason
        assert padded.missing == single.missing
        if single.grades is None:
            assert padded.grades is None
        else:
            assert padded.grades.tolist() == single.grades.tolist()
    # Padding rows get no grade.
    widest = max(t.ratings.shape[0] for t in topics)
    for t, topic in enumerate(topics):
        assert (batch.grades[t, topic.ratings.shape[0] : widest] == 0).all()


def test_grade_agreement_confusion_and_exact_match():
    computed = {"a": 3, "b": 2, "c": 1, "d": 3}
    imported = {"a": 3, "b": 1, "c": 1, "e": 2}
    result = grade_agreement(computed, imported)
    # Shared a, b, c. Rows = imported grade 1, 2, 3; columns = computed grade 1, 2, 3:
    #   imported 1: c -> computed 1, b -> computed 2  => [1, 1, 0]
    #   imported 2: none                              => [0, 0, 0]
    #   imported 3: a -> computed 3                   => [0, 0, 1]
    assert result.labels == (1, 2, 3)
    assert result.confusion.tolist() == [[1, 1, 0], [0, 0, 0], [0, 0, 1]]
    assert result.n == 3
    assert result.exact_match == pytest.approx(2 / 3)
    assert (result.only_computed, result.only_imported) == (1, 1)


def test_grade_agreement_without_shared_passages_is_undefined():
    result = grade_agreement({"a": 3}, {"b": 3})
    assert result.n == 0 and result.exact_match is None
    assert result.confusion.sum() == 0


def test_grade_agreement_extends_labels_with_unexpected_grades():
    result = grade_agreement({"a": 0, "b": 3}, {"a": 0, "b": 2})
    assert result.labels == (0, 1, 2, 3)
    assert result.exact_match == 0.5
