"""DSE, W and chunk labels on hand-made inputs (seed 003, eqs. 5, 6, 8-10)."""

import math

import numpy as np
import pytest

from evaluation.dense.method.graph import (
    CERTAIN,
    NECESSARY,
    UNNECESSARY,
    certain_chunks,
    chunk_labels,
    degree_entropy,
    degrees,
    entailment_weights,
    is_uncertain,
    max_entropy,
)


@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_all_responses_agree_gives_zero(k):
    assert degree_entropy(np.ones((k + 1, k + 1))) == 0.0


@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_all_responses_differ_gives_log_k_plus_one(k):
    w = np.eye(k + 1)
    assert degree_entropy(w) == pytest.approx(math.log(k + 1))
    assert degree_entropy(w) == pytest.approx(max_entropy(k))


def test_hand_computed_two_clusters_and_half_edges():
    # r0, r2 agree; r1, r3 agree; clusters differ: D = 2 each, DSE = -log(2/4) = log 2.
    w = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]], dtype=float)
    assert degree_entropy(w) == pytest.approx(math.log(2))
    # One odd response out of 4: D = [3, 1, 3, 3].
    w = np.ones((4, 4))
    w[1, :] = w[:, 1] = 0
    w[1, 1] = 1
    expected = -(3 * math.log(3 / 4) + math.log(1 / 4)) / 4
    assert degree_entropy(w) == pytest.approx(expected)
    assert expected == pytest.approx(0.5623351446)


def test_weights_average_both_directions_and_fill_the_diagonal():
    directed = [[0, 1, 1], [0, 0, 0], [1, 1, 0]]  # the diagonal is ignored
    w = entailment_weights(directed)
    assert w.tolist() == [[1.0, 0.5, 1.0], [0.5, 1.0, 0.5], [1.0, 0.5, 1.0]]
    assert degrees(w).tolist() == [2.5, 2.0, 2.5]
    expected = -(2 * math.log(2.5 / 3) + math.log(2 / 3)) / 3
    assert degree_entropy(w) == pytest.approx(expected)


def test_bad_matrices_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="square"):
        entailment_weights([[1, 0, 1]])
    with pytest.raises(ValueError, match="0 or 1"):
        entailment_weights([[1, 0.3], [1, 1]])
    with pytest.raises(ValueError, match="unit diagonal"):
        degree_entropy(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="non-empty"):
        degree_entropy(np.zeros((0, 0)))


def test_threshold_split_is_strict():
    assert not is_uncertain(0.2)
    assert is_uncertain(0.2000001)
    assert is_uncertain(0.1, threshold=0.05)


def test_chunk_labels_certain_necessary_unnecessary():
    # r1 agrees with r0; r2 half-agrees (one direction); r3 disagrees.
    w = entailment_weights([[1, 1, 1, 0], [1, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 1]])
    assert certain_chunks(w) == [True, False, False]
    labels = chunk_labels(w, {1: False, 2: True})
    assert labels == [CERTAIN, NECESSARY, UNNECESSARY]


def test_chunk_labels_need_the_ablation_of_every_uncertain_chunk():
    w = np.eye(3)
    with pytest.raises(ValueError, match="chunk 1 is not certain"):
        chunk_labels(w, {0: True})
