"""The pure ensemble combiner on hand-computed cases and edge cases."""

import numpy as np
import pytest

from crux_app.judge_ensembles import describe
from evaluation.judge_report.method.ensemble import combine

NAN = np.nan


def labels(rows, combiner, min_members=None):
    rows = np.array(rows, dtype=float)
    values, labelled = combine(rows, combiner, min_members or rows.shape[1])
    return [int(v) if ok else None for v, ok in zip(values, labelled, strict=True)]


def test_mean_rounds_half_up():
    # means 2.5, 3.5, 2.0, 0.5, 4.5
    rows = [[2, 3], [3, 4], [1, 3], [0, 1], [5, 4]]
    assert labels(rows, "mean") == [3, 4, 2, 1, 5]
    assert labels([[0, 0, 1], [5, 4, 5], [1, 2, 2]], "mean") == [0, 5, 2]


def test_median_odd_and_even():
    assert labels([[1, 5, 2], [0, 0, 4], [3, 3, 3]], "median") == [2, 0, 3]
    # even count: the two middle labels' mean, rounded half up
    assert labels([[1, 2, 4, 5], [0, 1, 1, 5]], "median") == [3, 1]
    assert labels([[2, 3]], "median") == [3]


def test_majority_and_its_tie_rule():
    assert labels([[1, 1, 4], [4, 2, 4], [0, 3, 3]], "majority") == [1, 4, 3]
    # a tie goes to the lowest of the tied labels
    assert labels([[1, 4], [4, 1]], "majority") == [1, 1]
    assert labels([[5, 2, 2, 5, 0]], "majority") == [2]
    assert labels([[3, 0, 5]], "majority") == [0]


def test_max():
    assert labels([[1, 4, 2], [0, 0, 0], [5, 1, 3]], "max") == [4, 0, 5]


def test_a_refusal_or_missing_label_is_no_label():
    rows = [[3, NAN, 4], [NAN, NAN, 2], [NAN, NAN, NAN], [1, 2, 5]]
    # default: every member must have labelled the item
    assert labels(rows, "mean") == [None, None, None, 3]
    # at least 2 of 3: the mean of the two present labels
    assert labels(rows, "mean", 2) == [4, None, None, 3]
    assert labels(rows, "max", 1) == [4, 2, None, 5]
    assert labels(rows, "median", 2) == [4, None, None, 2]
    assert labels(rows, "majority", 2) == [3, None, None, 1]


def test_negative_grades_are_labels():
    # TREC "junk" grades (-1): mean of -1 and 0 is -0.5, rounded half up to 0
    assert labels([[-1, 0], [-1, -2]], "mean") == [0, -1]
    assert labels([[-1, 2, -1]], "majority") == [-1]


def test_no_items():
    values, labelled = combine(np.zeros((0, 2)), "mean", 2)
    assert values.shape == (0,) and labelled.shape == (0,)


@pytest.mark.parametrize(
    ("rows", "combiner", "min_members", "message"),
    [
        ([[1, 2]], "sum", 2, "combiner"),
        ([[1, 2]], "mean", 3, "min_members"),
        ([[1, 2]], "mean", 0, "min_members"),
        ([[1.5, 2]], "mean", 2, "integers"),
        ([1, 2], "mean", 1, "2-d"),
    ],
)
def test_bad_input_is_refused(rows, combiner, min_members, message):
    with pytest.raises(ValueError, match=message):
        combine(np.array(rows, dtype=float), combiner, min_members)


def test_description():
    assert describe("mean", ["a", "b"], 2) == "mean of a, b"
    assert describe("max", ["a", "b", "c"], 2) == "max of a, b, c (items labelled by at least 2)"
