"""Accuracy per DSE bin, AUROC and AUARC on hand-computed cases."""

import math

import pytest

from evaluation.dense.method.metrics import accuracy_by_bin, auarc, auroc


def test_bins_are_left_closed():
    bins = accuracy_by_bin([0.0, 0.0, 0.2, 0.5, 1.7], [True, True, False, True, False])
    by_label = {b.label: (b.n, b.accuracy) for b in bins}
    assert by_label["[0, 0.2)"] == (2, 1.0)
    assert by_label["[0.2, 0.4)"] == (1, 0.0)
    assert by_label["[0.4, 0.6)"] == (1, 1.0)
    assert by_label["[0.6, 0.8)"] == (0, None)
    assert by_label["[1, inf)"] == (1, 0.0)
    with pytest.raises(ValueError, match="outside the bins"):
        accuracy_by_bin([-0.1], [True])


def test_auroc_perfect_inverse_and_undefined():
    assert auroc([0.0, 0.1, 0.9, 1.2], [True, True, False, False]) == 1.0
    assert auroc([0.9, 1.2, 0.0, 0.1], [True, True, False, False]) == 0.0
    assert auroc([0.0, 0.5], [True, True]) is None
    # Ties between a right and a wrong answer count half.
    assert auroc([0.3, 0.3], [True, False]) == 0.5


def test_auarc_by_hand():
    # Sorted by DSE: right, right, wrong -> accuracies 1, 1, 2/3 -> mean 8/9.
    assert auarc([0.0, 0.1, 0.7], [True, True, False]) == pytest.approx(8 / 9)
    # A tie between a right and a wrong answer: expected accuracy of the first one is 1/2,
    # of both 1/2 -> mean 1/2, whatever the input order.
    assert auarc([0.4, 0.4], [True, False]) == pytest.approx(0.5)
    assert auarc([0.4, 0.4], [False, True]) == pytest.approx(0.5)
    assert auarc([], []) is None
    assert math.isclose(auarc([1.0], [True]), 1.0)


def test_lengths_must_match():
    with pytest.raises(ValueError, match="2 DSE values for 1"):
        auroc([0.1, 0.2], [True])
