"""SePer's kernel, NLI label decisions and greedy clustering on hand-made matrices."""

import numpy as np
import pytest

from evaluation.seper.method.kernel import (
    CONTRADICTION,
    ENTAILMENT,
    NEUTRAL,
    bidirectional_entailment,
    entailment_kernel,
    greedy_clusters,
    loosely_equivalent,
    nli_labels,
)


def test_kernel_is_the_larger_entailment_probability_of_the_two_directions():
    forward = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    backward = np.array([[0.3, 0.6, 0.1], [0.4, 0.5, 0.1]])
    np.testing.assert_allclose(entailment_kernel(forward, backward), [0.7, 0.4])


def test_kernel_rejects_bad_probabilities():
    with pytest.raises(ValueError, match="differ"):
        entailment_kernel(np.ones((2, 3)) / 3, np.ones((1, 3)) / 3)
    with pytest.raises(ValueError, match="within"):
        entailment_kernel(np.full((1, 3), np.nan), np.ones((1, 3)) / 3)


def test_labels_are_the_argmax_column():
    probs = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
    assert nli_labels(probs).tolist() == [ENTAILMENT, NEUTRAL, CONTRADICTION]


def test_bidirectional_needs_entailment_both_ways():
    ab = np.array([ENTAILMENT, ENTAILMENT, NEUTRAL])
    ba = np.array([ENTAILMENT, NEUTRAL, ENTAILMENT])
    assert bidirectional_entailment(ab, ba).tolist() == [True, False, False]


def test_loose_equivalence_truth_table():
    ab = np.array([ENTAILMENT, NEUTRAL, NEUTRAL, CONTRADICTION, ENTAILMENT])
    ba = np.array([NEUTRAL, ENTAILMENT, NEUTRAL, ENTAILMENT, CONTRADICTION])
    assert loosely_equivalent(ab, ba).tolist() == [True, True, False, False, False]


def test_clusters_all_equivalent_and_none_equivalent():
    assert greedy_clusters(np.ones((3, 3), bool)) == [[0, 1, 2]]
    assert greedy_clusters(np.eye(3, dtype=bool)) == [[0], [1], [2]]
    assert greedy_clusters(np.ones((1, 1), bool)) == [[0]]


def test_a_response_is_compared_with_first_members_only():
    # 0 ~ 1 and 1 ~ 2 but 0 !~ 2: 2 never meets 1 (not a first member), so it opens a cluster.
    eq = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], bool)
    assert greedy_clusters(eq) == [[0, 1], [2]]


def test_a_response_joins_the_first_matching_cluster():
    # 0 !~ 1; 2 matches both first members and joins 0's cluster, the first one opened.
    eq = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1]], bool)
    assert greedy_clusters(eq) == [[0, 2], [1]]


def test_clustering_reads_row_j_against_earlier_first_members():
    # equivalent[j, f] is what is read: only row 1 says 1 ~ 0.
    eq = np.array([[1, 0], [1, 1]], bool)
    assert greedy_clusters(eq) == [[0, 1]]
    assert greedy_clusters(eq.T) == [[0], [1]]
    with pytest.raises(ValueError, match="square"):
        greedy_clusters(np.ones((2, 3), bool))


def test_rounding_errors_are_clipped_not_rejected():
    forward = np.array([[1.0000001, 0.0, -0.0000001]])
    np.testing.assert_allclose(entailment_kernel(forward, forward), [1.0])
    with pytest.raises(ValueError, match="within"):
        entailment_kernel(np.array([[1.1, 0.0, 0.0]]), forward)
