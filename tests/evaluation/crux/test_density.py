"""CRUX density: raw, oracle and normalised, with the undefined cases."""

import math

import numpy as np
import pytest

from evaluation.crux.method.coverage import (
    REASONS,
    Status,
    answerable_set,
    context_coverage,
)
from evaluation.crux.method.crux_ratings import RatingsBatch, TopicRatings, stack_contexts
from evaluation.crux.method.density import EMPTY_CONTEXT, density, density_values, topic_density


def test_hand_computed_density():
    # |A| = 4, T(O) = 200 -> d_oracle = 0.02. Context covers 2 in 50 tokens -> d = 0.04.
    # Normalised = (0.04 / 0.02) ** 0.5 = sqrt(2): denser than the oracle, not clipped.
    result = topic_density(covered=2, n_answerable=4, context_tokens=50, oracle_tokens=200)
    assert result.raw == pytest.approx(0.04)
    assert result.oracle == pytest.approx(0.02)
    assert result.normalised == pytest.approx(math.sqrt(2))
    assert result.reason is None
    # 1 covered in 400 tokens: d = 0.0025; ratio 0.125; sqrt(0.125) = 0.353553...
    result = topic_density(covered=1, n_answerable=4, context_tokens=400, oracle_tokens=200)
    assert result.normalised == pytest.approx(math.sqrt(0.125))


def test_gamma_is_the_exponent():
    # Ratio 0.125 with gamma = 1 stays 0.125; gamma = 1/3 gives 0.5.
    assert topic_density(1, 4, 400, 200, gamma=1.0).normalised == pytest.approx(0.125)
    assert topic_density(1, 4, 400, 200, gamma=1 / 3).normalised == pytest.approx(0.5)


def test_context_covering_nothing_has_density_zero():
    result = topic_density(covered=0, n_answerable=3, context_tokens=120, oracle_tokens=90)
    assert (result.raw, result.normalised) == (0.0, 0.0)


def test_empty_context_is_undefined():
    # T(C) = 0: 0 covered / 0 tokens is undefined, not 0.
    result = topic_density(covered=0, n_answerable=3, context_tokens=0, oracle_tokens=90)
    assert result.raw is None and result.normalised is None
    assert result.reason == EMPTY_CONTEXT
    assert result.oracle == pytest.approx(3 / 90)


def test_empty_answerable_set_is_undefined():
    result = topic_density(covered=0, n_answerable=0, context_tokens=100, oracle_tokens=0)
    assert (result.raw, result.oracle, result.normalised) == (None, None, None)
    assert result.reason == REASONS[Status.NO_ANSWERABLE]


def test_undefined_coverage_gives_undefined_density():
    result = topic_density(covered=None, n_answerable=3, context_tokens=100, oracle_tokens=90)
    assert result.raw is None and result.normalised is None
    assert result.reason == "coverage undefined"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((2, 4, 0, 200), "context covers 2 questions in 0 tokens"),
        ((1, 4, 50, 0), "oracle answers 4 questions in 0 tokens"),
        ((1, 4, -5, 200), "context tokens of topic 0 must be a count"),
        ((1, -1, 5, 200), r"\|A\| of topic 0"),
    ],
)
def test_inconsistent_counts_are_errors(args, message):
    with pytest.raises(ValueError, match=message):
        topic_density(*args)


def test_gamma_must_be_positive():
    with pytest.raises(ValueError, match="gamma"):
        topic_density(1, 2, 3, 4, gamma=0)


def test_density_from_a_coverage_batch():
    # Topic 0: A = {q0, q1}; context [p2] covers both. Topic 1: no required passage.
    # Topic 2: context [p2] where p2's q1 rating is unjudged -> coverage undefined.
    ratings = np.array([[5.0, 0.0], [0.0, 4.0], [3.0, 3.0]])
    unjudged = ratings.copy()
    unjudged[2, 1] = np.nan
    batch = RatingsBatch.stack(
        [
            TopicRatings(ratings, np.array([True, True, False])),
            TopicRatings(ratings, np.zeros(3, bool)),
            TopicRatings(unjudged, np.array([True, True, False])),
        ]
    )
    answerable = answerable_set(batch, 3)
    coverage = context_coverage(batch, stack_contexts([[2], [2], [2]]), answerable, 3)
    result = density(coverage, context_tokens=[40, 40, 40], oracle_tokens=[80, 80, 80])
    # Topic 0: d = 2/40 = 0.05; d_oracle = 2/80 = 0.025; sqrt(2).
    assert result.topic(0).raw == pytest.approx(0.05)
    assert result.topic(0).normalised == pytest.approx(math.sqrt(2))
    assert result.topic(1).normalised is None
    assert result.topic(1).reason == REASONS[Status.NO_ANSWERABLE]
    assert result.topic(2).normalised is None
    assert result.topic(2).reason == REASONS[Status.UNJUDGED_CONTEXT]


def test_density_values_broadcasts_scalars():
    result = density_values(np.array([1.0, 2.0]), 2, np.array([10, 20]), 40)
    # d = 0.1 both; d_oracle = 2/40 = 0.05; ratio 2.
    assert result.raw.tolist() == pytest.approx([0.1, 0.1])
    assert result.normalised.tolist() == pytest.approx([math.sqrt(2)] * 2)
