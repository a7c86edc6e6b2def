"""Packed integer columns (``crux_app.query_arrays``), as the evaluation reads judgments: the
same values as the plain read, rows sorted by their columns, NULLs, values outside the
bounds (read again unpacked), and several words per row."""

import numpy as np
import pytest

from crux_app.models import Judgment
from crux_app.query_arrays import NULL, Field, IntRows, int_columns, packed_int_columns
from tests.evaluation.crux.random_collection import make_random_collection

FIELDS = ["topic_id", "passage_id", "subquestion_id", "rating"]


def _judgments(collection):
    return Judgment.objects.filter(topic__collection=collection)


def _bounds(collection, wide: bool = False):
    plain = int_columns(_judgments(collection), FIELDS[:3])
    out = [(int(plain[:, i].min()), int(plain[:, i].max())) for i in range(3)]
    if wide:  # forces each id into a word of its own
        out = [(low, low + 2**40) for low, _ in out]
    return [*out, (0, 5)]


def _lexsorted(rows: np.ndarray) -> np.ndarray:
    return rows[np.lexsort(rows.T[::-1])]


def _columns(rows: IntRows) -> np.ndarray:
    return np.stack([rows.column(i) for i in range(len(rows.fields))], axis=1)


@pytest.mark.django_db
@pytest.mark.parametrize("wide", [False, True])
def test_packed_rows_hold_the_plain_values_and_sort_like_them(wide):
    collection = make_random_collection()
    plain = int_columns(_judgments(collection), FIELDS)
    assert (plain[:, 3] == NULL).any()  # unparsable ratings read NULL in both
    packed = packed_int_columns(_judgments(collection), FIELDS, _bounds(collection, wide))
    assert packed.words.shape[1] == (3 if wide else 1)
    assert all(f.low is not None for f in packed.fields)
    got = _columns(packed)
    assert np.array_equal(_lexsorted(got), _lexsorted(plain))
    assert np.array_equal(_columns(packed.sorted()), _lexsorted(plain))


@pytest.mark.django_db
def test_a_value_outside_its_bounds_reads_everything_again_unpacked():
    collection = make_random_collection()
    plain = int_columns(_judgments(collection), FIELDS)
    bounds = _bounds(collection)
    low, high = bounds[1]
    bounds[1] = (low, low + (high - low) // 4)  # fewer bits than the passage ids need
    packed = packed_int_columns(_judgments(collection), FIELDS, bounds)
    assert all(f.low is None for f in packed.fields)
    assert np.array_equal(_lexsorted(_columns(packed)), _lexsorted(plain))
    assert np.array_equal(_columns(packed.sorted()), _lexsorted(plain))


@pytest.mark.django_db
def test_no_rows():
    rows = packed_int_columns(Judgment.objects.none(), FIELDS, [(1, 9)] * 4)
    assert len(rows) == 0 and len(rows.sorted()) == 0
    assert rows.column(2).shape == (0,)


def _plain_rows(values: np.ndarray) -> IntRows:
    return IntRows(values, tuple(Field(i, 0, 64, None) for i in range(values.shape[1])))


def test_sorting_repacks_into_one_word_or_falls_back_to_lexsort():
    rng = np.random.default_rng(3)
    small = rng.integers(0, 50, size=(500, 3))
    small[rng.random(500) < 0.1, 1] = NULL
    repacked = _plain_rows(small).sorted()
    assert repacked.words.shape[1] == 1  # the values fit one word: sorted as words
    assert np.array_equal(_columns(repacked), _lexsorted(small))
    large = np.stack([rng.integers(0, 2**40, 500), rng.integers(0, 2**40, 500)], axis=1)
    large[:100, 0] = large[100:200, 0]  # ties on the first column
    assert np.array_equal(_columns(_plain_rows(large).sorted()), _lexsorted(large))


def test_group_starts_mark_changes_of_the_leading_columns():
    values = np.array([[1, 1, 5], [1, 1, 6], [1, 2, 5], [2, 2, 5], [2, 2, 5]])
    expected = [True, False, True, True, False]
    assert _plain_rows(values).group_starts(2).tolist() == expected
    one_word = _plain_rows(values).sorted()
    assert one_word.words.shape[1] == 1
    assert one_word.group_starts(2).tolist() == expected
    assert one_word.group_starts(1).tolist() == [True, False, False, True, False]
    assert one_word.column(2, slice(1, 3)).tolist() == [6, 5]
