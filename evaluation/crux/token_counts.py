"""Passage token counts for CRUX density, cached on ``Passage.token_count``.

The tokenizer is TOKENIZER_MODEL (empty: the generator's, i.e. the embedded SmolLM2 one by
default), loaded through ``evaluation.backends.registry`` only when some count is missing (a
tokenizer alone: the leaderboard counts in web processes, which never load model weights); the
name it is cached under is stored in ``token_count_tokenizer``, so a count made by another
tokenizer is never reused. ``whitespace`` names a plain whitespace split (fast, for tests and
quick looks). T(X) of a set of passages is the sum of their counts (joining texts with a
separator changes a count by at most a token per boundary, which the paper's figure ignores).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from crux_app.models import Passage
from crux_app.query_arrays import sql_int_columns
from evaluation.backends.base import TokenCounter
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID

WHITESPACE = "whitespace"
# Texts tokenized per call: bounds memory on long passages without many tiny calls.
COUNT_BATCH = 256


class WhitespaceCounter:
    """Tokens = whitespace-separated words."""

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]


def configured_tokenizer() -> str:
    """The name counts are cached under: TOKENIZER_MODEL, else the generator's model id."""
    return settings.TOKENIZER_MODEL or settings.GENERATOR_MODEL or EMBEDDED_GENERATOR_ID


def token_counter(name: str) -> TokenCounter:
    """The counter for a tokenizer name from ``configured_tokenizer`` (or ``whitespace``)."""
    if name == WHITESPACE:
        return WhitespaceCounter()
    if name != configured_tokenizer():
        raise ValueError(
            f"tokenizer {name!r} is not the configured one ({configured_tokenizer()!r}); "
            f"set TOKENIZER_MODEL or use {WHITESPACE!r}"
        )
    # Imported here: the registry pulls in torch, which a run with cached counts never needs.
    from evaluation.backends.registry import get_token_counter

    return get_token_counter()


def _store(counts: dict[int, int], name: str) -> None:
    """One UPDATE for all new counts (bulk_update would send a CASE per row)."""
    if connection.vendor != "postgresql":  # the SQLite demo: no unnest
        rows = [
            Passage(pk=pk, token_count=n, token_count_tokenizer=name) for pk, n in counts.items()
        ]
        Passage.objects.bulk_update(rows, ["token_count", "token_count_tokenizer"], batch_size=500)
        return
    table = connection.ops.quote_name(Passage._meta.db_table)
    ids, values = list(counts), list(counts.values())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} AS p SET token_count = v.n, token_count_tokenizer = %s "
            "FROM unnest(%s::bigint[], %s::integer[]) AS v(id, n) WHERE p.id = v.id",
            [name, ids, values],
        )


def _cached(ids: np.ndarray, name: str) -> np.ndarray:
    """(N, 3) id, count cached under ``name`` (-1: none), has_text of the passages: one array
    parameter, not an IN list of tens of thousands of placeholders, and no tuple per row."""
    table = connection.ops.quote_name(Passage._meta.db_table)
    sql = (
        f"SELECT id, CASE WHEN token_count_tokenizer = %s THEN token_count END, "
        f"has_text::int FROM {table} WHERE id = ANY(%s::text::bigint[])"
    )
    if connection.vendor != "postgresql":  # the SQLite demo
        rows = Passage.objects.filter(pk__in=ids.tolist()).values_list(
            "pk", "token_count", "token_count_tokenizer", "has_text"
        )
        flat = [
            (pk, n if n is not None and by == name else -1, int(text)) for pk, n, by, text in rows
        ]
        return np.array(flat, np.int64).reshape(-1, 3)
    # The ids as one array literal: psycopg would adapt every Python int of a list in turn.
    literal = "{" + ",".join(map(str, ids.tolist())) + "}"
    return sql_int_columns(sql, [name, literal], 3)


@dataclass(frozen=True)
class TokenCountTable:
    """Token counts of passages: sorted ids, counts as floats (NaN: no text available)."""

    ids: np.ndarray
    counts: np.ndarray

    def lookup(self, passage_ids: np.ndarray) -> np.ndarray:
        """Counts of an array of passage ids, NaN where unknown (no text, or absent)."""
        wanted = np.asarray(passage_ids, np.int64)
        if not len(self.ids):
            return np.full(wanted.shape, np.nan)
        at = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        return np.where(self.ids[at] == wanted, self.counts[at], np.nan)


def token_count_table(passage_ids: np.ndarray, tokenizer: str | None = None) -> TokenCountTable:
    """Counts of the passages under ``tokenizer`` (default: the configured one); missing
    counts are computed once and stored."""
    name = tokenizer or configured_tokenizer()
    rows = _cached(np.unique(np.asarray(passage_ids, np.int64)), name)
    rows = rows[np.argsort(rows[:, 0])]
    ids, counts, has_text = rows[:, 0], rows[:, 1].astype(np.float64), rows[:, 2] == 1
    todo = ids[has_text & (rows[:, 1] < 0)].tolist()
    if todo:
        counter = token_counter(name)
        fresh: dict[int, int] = {}
        for start in range(0, len(todo), COUNT_BATCH):
            chunk = dict(
                Passage.objects.filter(pk__in=todo[start : start + COUNT_BATCH]).values_list(
                    "pk", "text"
                )
            )
            keys = list(chunk)
            fresh.update(zip(keys, counter.count_tokens([chunk[k] for k in keys]), strict=True))
        _store(fresh, name)
        at = np.searchsorted(ids, np.fromiter(fresh, np.int64, len(fresh)))
        counts[at] = np.fromiter(fresh.values(), np.float64, len(fresh))
    counts[~has_text] = np.nan
    return TokenCountTable(ids, counts)
