"""Passage token counts for CRUX density, cached on ``Passage.token_count``.

The tokenizer is TOKENIZER_MODEL (empty: the generator's, i.e. the embedded SmolLM2 one by
default), loaded through ``evaluation.backends.registry`` only when some count is missing; the
name it is cached under is stored in ``token_count_tokenizer``, so a count made by another
tokenizer is never reused. ``whitespace`` names a plain whitespace split (fast, for tests and
quick looks). T(X) of a set of passages is the sum of their counts (joining texts with a
separator changes a count by at most a token per boundary, which the paper's figure ignores).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from crux_app.models import Passage
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
    table = connection.ops.quote_name(Passage._meta.db_table)
    ids, values = list(counts), list(counts.values())
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} AS p SET token_count = v.n, token_count_tokenizer = %s "
            "FROM unnest(%s::bigint[], %s::integer[]) AS v(id, n) WHERE p.id = v.id",
            [name, ids, values],
        )


def _cached(ids: list[int]) -> list[tuple[int, int | None, str, bool]]:
    """(id, count, tokenizer, has_text) of the passages; one array parameter, not an IN list
    of tens of thousands of placeholders."""
    table = connection.ops.quote_name(Passage._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, token_count, token_count_tokenizer, has_text FROM {table} "
            "WHERE id = ANY(%s::bigint[])",
            [ids],
        )
        return cursor.fetchall()


def token_counts(passage_ids: Iterable[int], tokenizer: str | None = None) -> dict[int, int | None]:
    """passage id -> token count under ``tokenizer`` (default: the configured one); None for a
    passage whose text is not available. Missing counts are computed once and stored."""
    name = tokenizer or configured_tokenizer()
    ids = sorted(set(int(p) for p in passage_ids))
    out: dict[int, int | None] = {}
    todo: list[int] = []
    for pk, count, cached_by, has_text in _cached(ids):
        if not has_text:
            out[pk] = None
        elif count is not None and cached_by == name:
            out[pk] = count
        else:
            todo.append(pk)
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
        out.update(fresh)
    return out


def count_array(counts: dict[int, int | None], passage_ids: np.ndarray) -> np.ndarray:
    """Counts of an array of passage ids as floats, NaN where unknown (no text, or absent)."""
    ids = np.fromiter(counts.keys(), np.int64, len(counts))
    values = np.fromiter(
        (np.nan if n is None else n for n in counts.values()), np.float64, len(counts)
    )
    order = np.argsort(ids)
    ids, values = ids[order], values[order]
    wanted = np.asarray(passage_ids, np.int64)
    at = np.minimum(np.searchsorted(ids, wanted), max(len(ids) - 1, 0))
    found = (at < len(ids)) & (ids[at] == wanted) if len(ids) else np.zeros(wanted.shape, bool)
    return np.where(found, values[at] if len(ids) else np.nan, np.nan)
