"""A collection's judgments, qrels and run entries read as packed integer arrays.

The evaluation of a 5,000-topic collection reads millions of judgments; each is four small
integers (topic, passage, sub-question, rating) whose bounds are known: ids lie between
their table's smallest and largest, ratings in 0..5 (the table's check constraint). Packed
into one 8-byte word each (``crux_app.query_arrays.packed_int_columns``), the rows cost
PostgreSQL a quarter of the output and numpy one sort of words, rather than a sort of rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import Case, IntegerField, Value, When
from django.db.models.functions import Cast

from crux_app.inputs import JudgeInfo
from crux_app.models import Collection, Judgment, Passage, PassageQrel, RunEntry, SubQuestion
from crux_app.query_arrays import NULL, IntRows, int_columns, packed_int_columns

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING
RATINGS = (0, 5)  # the judgment_rating_range check constraint
UNSIGNED_INT = (0, 2**31 - 1)  # a PositiveIntegerField (rank, line order)
SMALL_INT = (-(2**15), 2**15 - 1)  # a SmallIntegerField (qrels grade)


@dataclass(frozen=True)
class IdBounds:
    """Smallest and largest ids of the tables whose ids judgments and runs name."""

    passage: tuple[int, int]
    subquestion: tuple[int, int]


def id_bounds() -> IdBounds:
    """One query, answered from the primary-key indexes."""
    tables = [connection.ops.quote_name(m._meta.db_table) for m in (Passage, SubQuestion)]
    parts = ", ".join(f"(SELECT min(id) FROM {t}), (SELECT max(id) FROM {t})" for t in tables)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {parts}")
        row = [0 if v is None else int(v) for v in cursor.fetchone()]
    return IdBounds((row[0], row[1]), (row[2], row[3]))


def _bounds(ids: np.ndarray) -> tuple[int, int]:
    return (int(ids.min()), int(ids.max())) if len(ids) else (0, 0)


def topic_scope(collection: Collection, topics: Sequence[int] | None) -> dict[str, object]:
    """The filter of a topic's rows (judgments, qrels, sub-questions) in the collection, or in
    ``topics`` only (ids of the collection's topics: the topics a page recomputes)."""
    if topics is None:
        return {"topic__collection": collection}
    return {"topic_id__in": [int(t) for t in topics]}


def subquestions(collection: Collection, topics: Sequence[int] | None = None) -> np.ndarray:
    """(Q, 3) topic id, id, is_placeholder of the collection's sub-questions (of ``topics``
    only), in (topic, position) order."""
    rows = int_columns(
        SubQuestion.objects.filter(**topic_scope(collection, topics)).annotate(
            placeholder=Cast("is_placeholder", IntegerField())
        ),
        ["topic_id", "position", "id", "placeholder"],
    )
    return rows[np.lexsort((rows[:, 1], rows[:, 0]))][:, [0, 2, 3]]


# Ratings decoded per chunk: the columns of 7.5 M ratings and their temporaries would take
# a GB at once; a million at a time bounds them to ~50 MB.
CHUNK_ROWS = 1_000_000


@dataclass(frozen=True)
class JudgedChunk:
    pair: np.ndarray  # index into the pairs
    subquestion: np.ndarray  # sub-question id
    rating: np.ndarray  # 0..5, NULL (-1) for an unparsable output


@dataclass(frozen=True)
class JudgedRows:
    """One judge's passage ratings, sorted by (topic, passage, sub-question), kept packed and
    decoded a chunk at a time (``chunks``); every distinct (topic, passage) pair once in
    ``pair_topic`` / ``pair_passage``."""

    rows: IntRows  # topic id, passage id, sub-question id, rating
    starts: np.ndarray  # (N,) bool: the rating starts a new pair
    pair_topic: np.ndarray  # (M,) topic id
    pair_passage: np.ndarray  # (M,) passage id
    histogram: np.ndarray  # (T, 7) per topic: how many ratings read NULL, 0, 1, ..., 5

    def __len__(self) -> int:
        return len(self.rows)

    def chunks(self) -> Iterator[JudgedChunk]:
        """The ratings in order, CHUNK_ROWS at a time."""
        pairs_before = 0
        for start in range(0, len(self.rows), CHUNK_ROWS):
            at = slice(start, start + CHUNK_ROWS)
            pair = np.cumsum(self.starts[at]) + (pairs_before - 1)
            pairs_before = int(pair[-1]) + 1
            yield JudgedChunk(pair, self.rows.column(2, at), self.rows.column(3, at))


def judged_rows(
    collection: Collection,
    judge: JudgeInfo | None,
    topic_ids: np.ndarray,
    bounds: IdBounds,
    topics: Sequence[int] | None = None,
) -> JudgedRows:
    """The judge's ratings of the collection's passages (none without a judge), of the topics
    ``topic_ids`` (sorted; every topic of the collection unless ``topics`` names some)."""
    rows = packed_int_columns(
        Judgment.objects.filter(
            judge_id=judge.id if judge else None,
            task=PASSAGE_RATING,
            passage__isnull=False,
            **topic_scope(collection, topics),
        ),
        ["topic_id", "passage_id", "subquestion_id", "rating"],
        [_bounds(topic_ids), bounds.passage, bounds.subquestion, RATINGS],
    ).sorted()
    starts = rows.group_starts(2)
    first = np.flatnonzero(starts)
    histogram = np.zeros(len(topic_ids) * 7, np.int64)
    for start in range(0, len(rows), CHUNK_ROWS):
        at = slice(start, start + CHUNK_ROWS)
        cell = np.searchsorted(topic_ids, rows.column(0, at)) * 7 + (rows.column(3, at) - NULL)
        histogram += np.bincount(cell, minlength=len(histogram))[: len(histogram)]
    return JudgedRows(
        rows=rows,
        starts=starts,
        pair_topic=rows.column(0, first),
        pair_passage=rows.column(1, first),
        histogram=histogram.reshape(len(topic_ids), 7),
    )


@dataclass(frozen=True)
class QrelRows:
    """Passage qrels of the collection: every source's (topic, passage) pairs, and the chosen
    source's grades, each sorted by (topic id, passage id)."""

    any_topic: np.ndarray
    any_passage: np.ndarray
    topic: np.ndarray  # chosen source only
    passage: np.ndarray
    grade: np.ndarray


def qrel_rows(
    collection: Collection,
    source: str | None,
    topic_ids: np.ndarray,
    bounds: IdBounds,
    topics: Sequence[int] | None = None,
) -> QrelRows:
    chosen = Case(When(source=source, then=Value(1)), default=Value(0), output_field=IntegerField())
    rows = packed_int_columns(
        PassageQrel.objects.filter(**topic_scope(collection, topics)).annotate(chosen=chosen),
        ["topic_id", "passage_id", "chosen", "grade"],
        [_bounds(topic_ids), bounds.passage, (0, 1), SMALL_INT],
    ).sorted()
    topic, passage = rows.column(0), rows.column(1)
    mine = rows.column(2) == 1
    return QrelRows(topic, passage, topic[mine], passage[mine], rows.column(3)[mine])


@dataclass(frozen=True)
class RunRows:
    """Entries of the runs sorted by (run, topic, rank, line order), one slice per run."""

    run: np.ndarray  # (N,) run id
    topic: np.ndarray  # (N,) topic id
    passage: np.ndarray  # (N,) passage id
    starts: dict[int, tuple[int, int]]  # run id -> (start, end) in the arrays


def run_rows(
    collection: Collection,
    run_ids: Sequence[int],
    topic_ids: np.ndarray,
    bounds: IdBounds,
    topics: Sequence[int] | None = None,
) -> RunRows:
    ids = np.asarray(sorted(run_ids), np.int64)
    entries = RunEntry.objects.filter(run__collection=collection, run_id__in=ids.tolist())
    if topics is not None:
        entries = entries.filter(topic_id__in=[int(t) for t in topics])
    rows: IntRows = packed_int_columns(
        entries,
        ["run_id", "topic_id", "rank", "line_order", "passage_id"],
        [_bounds(ids), _bounds(topic_ids), UNSIGNED_INT, UNSIGNED_INT, bounds.passage],
    ).sorted()
    run = rows.column(0)
    edges = np.searchsorted(run, np.concatenate([ids, [np.iinfo(np.int64).max]]))
    starts = {int(pk): (int(edges[i]), int(edges[i + 1])) for i, pk in enumerate(ids)}
    return RunRows(run, rows.column(1), rows.column(4), starts)
