"""Integer columns of a large query straight into numpy, as one packed binary value.

A collection of 5,000 topics holds millions of judgments; ``values_list`` builds a Python tuple
per row (seconds per million, and a GiB of memory), and COPY hands rows over one message at a
time. Here PostgreSQL packs every row's integers as 8-byte big-endian values into a single
bytea (``int8send``), which numpy reads without a copy per row. The query is the ORM's own
SQL, so filters stay in the ORM. One bytea holds at most 1 GB: about 33 million rows of 4
columns.

``packed_int_columns`` goes further for columns whose bounds the caller knows (ids between
the table's smallest and largest, ratings 0..5): PostgreSQL packs several columns into one
8-byte word (a judgment's topic, passage, sub-question and rating: one word instead of four),
so the server writes and the client reads a quarter of the bytes, and numpy sorts rows by
sorting words. A value outside its bounds (a row written after the bounds were read) is
detected, and the rows are read again unpacked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import psycopg
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import QuerySet

NULL = -1  # what a NULL reads as (ids and ratings are never negative)
WORD_BITS = 63  # bits of a packed word: int8 is signed, and the sign bit stays 0


def _fetch_bytes(queryset: QuerySet, fields: Sequence[str], expression) -> bytes | None:
    """One bytea: ``expression(column names)`` of every row of the queryset, concatenated."""
    sql, params = queryset.order_by().values_list(*fields).query.sql_with_params()
    return _aggregate(sql, params, len(fields), expression)


def _aggregate(sql: str, params: Sequence, width: int, expression) -> bytes | None:
    names = [f"c{i}" for i in range(width)]
    statement = (
        f"SELECT string_agg({expression(names)}, ''::bytea) FROM ({sql}) AS q({', '.join(names)})"
    )
    connection.ensure_connection()
    # Binary results need psycopg's own (server-binding) cursor; it shares Django's connection
    # and transaction, so it sees exactly the rows the ORM would.
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(statement, params, binary=True)
        (value,) = cursor.fetchone()
    return value


def _plain_words(names: list[str]) -> str:
    return " || ".join(f"int8send(coalesce({n}::int8, {NULL}))" for n in names)


def sql_int_columns(sql: str, params: Sequence, width: int) -> np.ndarray:
    """(rows, width) int64 array of a SELECT of ``width`` integer columns (PostgreSQL
    placeholders ``%s``); NULL reads -1. For statements the ORM cannot write, such as an
    ``= ANY(%s)`` over a large array of ids."""
    value = _aggregate(sql, params, width, _plain_words)
    if not value:
        return np.zeros((0, width), np.int64)
    return np.frombuffer(value, dtype=">i8").reshape(-1, width).astype(np.int64)


def _values_list(queryset: QuerySet, fields: Sequence[str]) -> np.ndarray:
    """The plain ORM read, for databases other than PostgreSQL (the SQLite demo)."""
    rows = queryset.order_by().values_list(*fields)
    flat = [NULL if v is None else int(v) for row in rows for v in row]
    return np.array(flat, dtype=np.int64).reshape(-1, len(fields))


def int_columns(queryset: QuerySet, fields: Sequence[str]) -> np.ndarray:
    """(rows, len(fields)) int64 array of the queryset's integer ``fields``; NULL reads -1."""
    width = len(fields)
    if connection.vendor != "postgresql":
        return _values_list(queryset, fields)
    try:
        value = _fetch_bytes(queryset, fields, _plain_words)
    except EmptyResultSet:  # e.g. an ``__in=[]`` filter: Django knows no row matches
        return np.zeros((0, width), np.int64)
    if not value:
        return np.zeros((0, width), np.int64)
    return np.frombuffer(value, dtype=">i8").reshape(-1, width).astype(np.int64)


@dataclass(frozen=True)
class Field:
    """Where one column sits in a packed row: ``word``, bit ``shift`` and ``width``; its code
    is ``value - low + 1``, 0 for NULL. A plain (unpacked) column has ``low=None``."""

    word: int
    shift: int
    width: int
    low: int | None


@dataclass(frozen=True)
class IntRows:
    """Rows of integer columns, possibly several columns to a word; NULL reads ``NULL``."""

    words: np.ndarray  # (rows, words) int64
    fields: tuple[Field, ...]

    def __len__(self) -> int:
        return len(self.words)

    def column(self, i: int, at: np.ndarray | slice | None = None) -> np.ndarray:
        """Column ``i`` as int64 (NULL -> ``NULL``), of every row or of rows ``at``."""
        f = self.fields[i]
        word = self.words[:, f.word] if at is None else self.words[at, f.word]
        if f.low is None:
            return word.copy()
        code = word >> f.shift
        code &= (1 << f.width) - 1
        null = code == 0
        code += f.low - 1
        if null.any():
            code[null] = NULL
        return code

    def group_starts(self, n: int) -> np.ndarray:
        """(rows,) bool: where the first ``n`` columns differ from the row before (the first
        row included); on sorted rows, the starts of their groups."""
        starts = np.ones(len(self), bool)
        if self._word_is_order():  # those columns are the word's top bits
            key = self.words[:, 0] >> self.fields[n - 1].shift
            np.not_equal(key[1:], key[:-1], out=starts[1:])
            return starts
        starts[1:] = False
        for i in range(n):
            c = self.column(i)
            starts[1:] |= c[1:] != c[:-1]
        return starts

    def sorted(self) -> IntRows:
        """The rows in lexicographic order of their columns (first column first)."""
        if len(self) < 2:
            return self
        if self._word_is_order():
            key = self.words[:, 0]
            if bool((key[1:] >= key[:-1]).all()):  # stored order often is the order already
                return self
            return IntRows(np.sort(key)[:, None], self.fields)
        columns = [self.column(i) for i in range(len(self.fields))]
        lows, widths = [], []
        for c in columns:
            present = c[c != NULL]
            low = int(present.min()) if present.size else 0
            lows.append(low)
            widths.append((int(present.max()) - low + 1).bit_length() if present.size else 0)
        if sum(widths) > WORD_BITS:
            order = np.lexsort(columns[::-1])
            return IntRows(self.words[order], self.fields)
        # Re-pack with the bounds the values really have: sorting the word sorts the rows.
        key = np.zeros(len(self), np.int64)
        fields = []
        shift = sum(widths)
        for c, low, width in zip(columns, lows, widths, strict=True):
            shift -= width
            key |= np.where(c == NULL, 0, c - (low - 1)) << shift
            fields.append(Field(0, shift, width, low))
        return IntRows(np.sort(key)[:, None], tuple(fields))

    def _word_is_order(self) -> bool:
        """One word whose fields run from the highest bits down in column order."""
        shifts = [f.shift for f in self.fields]
        return (
            self.words.shape[1] == 1
            and all(f.low is not None for f in self.fields)
            and shifts == sorted(shifts, reverse=True)
        )


def _layout(bounds: Sequence[tuple[int, int]]) -> list[Field] | None:
    """Fields packed greedily into words, or None when a column cannot be packed."""
    fields: list[Field] = []
    word, used = 0, 0
    widths = [(high - low + 2).bit_length() for low, high in bounds]  # + NULL + overflow codes
    for (low, high), width in zip(bounds, widths, strict=True):
        if high < low or width > WORD_BITS:
            return None
        if used + width > WORD_BITS:
            word, used = word + 1, 0
        used += width
        fields.append(Field(word, WORD_BITS - used, width, low))
    # Shifts counted from the top: move each word's fields down to bit 0.
    top = {w: min(f.shift for f in fields if f.word == w) for w in {f.word for f in fields}}
    return [Field(f.word, f.shift - top[f.word], f.width, f.low) for f in fields]


def packed_int_columns(
    queryset: QuerySet, fields: Sequence[str], bounds: Sequence[tuple[int, int]]
) -> IntRows:
    """The queryset's integer ``fields`` with each column's (low, high) ``bounds``, several
    columns to a word. A word's fields run from its highest bits down in the given order,
    so with one word ``IntRows.sorted`` sorts the words themselves."""
    layout = _layout(bounds)
    if connection.vendor != "postgresql" or layout is None:
        return _plain(int_columns(queryset, fields))

    def expression(names: list[str]) -> str:
        words: dict[int, list[str]] = {}
        for name, f in zip(names, layout, strict=True):
            overflow = (1 << f.width) - 1  # the all-ones code: a value outside the bounds
            code = (
                f"(CASE WHEN {name} IS NULL THEN 0 "
                f"WHEN {name} BETWEEN {f.low} AND {f.low + overflow - 2} "
                f"THEN {name}::int8 - {f.low - 1} ELSE {overflow} END)::int8"
            )
            words.setdefault(f.word, []).append(f"({code} << {f.shift})" if f.shift else code)
        return " || ".join(f"int8send({' | '.join(parts)})" for _, parts in sorted(words.items()))

    n_words = layout[-1].word + 1
    try:
        value = _fetch_bytes(queryset, fields, expression)
    except EmptyResultSet:
        value = None
    if not value:
        return IntRows(np.zeros((0, n_words), np.int64), tuple(layout))
    rows = IntRows(
        np.frombuffer(value, dtype=">i8").reshape(-1, n_words).astype(np.int64), tuple(layout)
    )
    for f in layout:
        overflow = (1 << f.width) - 1
        if bool((((rows.words[:, f.word] >> f.shift) & overflow) == overflow).any()):
            # A row newer than the bounds: read everything again, unpacked.
            return _plain(int_columns(queryset, fields))
    return rows


def _plain(columns: np.ndarray) -> IntRows:
    return IntRows(columns, tuple(Field(i, 0, 64, None) for i in range(columns.shape[1])))
