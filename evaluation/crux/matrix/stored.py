"""The stored rows a topic's coverage matrix reads: its sub-questions, the preferred qrel grade
of each passage, every judge's passage ratings as one array, and runs' passage orders. Loaded
per matrix, or once (``load_stored``) for the matrices of several runs.

The ratings are the bulk of it (judges x sub-questions x passages rows): they come as one packed
binary value (``crux_app.query_arrays``), never as model instances or per-row tuples."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import Case, IntegerField, Value, When

from crux_app.models import Judgment, Passage, PassageQrel, RunEntry, SubQuestion, Topic
from crux_app.query_arrays import NULL, int_columns

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING
# An unparsable rating's code (the ratings are 0..5): a NULL rating, as ``int_columns`` reads it.
UNPARSABLE = NULL
# The columns of ``rating_rows``; the first four are ``judgment_array``'s.
RATING_FIELDS = ("judge_id", "subquestion_id", "passage_id", "rating", "has_distribution")
JUDGE, SUBQUESTION, PASSAGE, RATING, HAS_DISTRIBUTION = range(len(RATING_FIELDS))


@dataclass(frozen=True)
class StoredTopic:
    """What the matrices of one topic read, loaded once for several runs (the topic page sums
    up every run's coverage in a fixed handful of queries)."""

    subquestions: list[tuple[int, int, str]]
    grades: dict[int, tuple[int, str]]
    judged: np.ndarray
    run_orders: dict[int, list[int]]  # run id -> passage ids in (rank, line) order
    external_ids: dict[int, str]


def load_stored(topic: Topic, run_ids: list[int]) -> StoredTopic:
    """The topic's sub-questions, qrel grades, passage ratings, the runs' orders and the
    passages' external ids, in five queries."""
    judged = judgment_array(topic)
    grades = preferred_grades(topic)
    orders: dict[int, list[int]] = {run_id: [] for run_id in run_ids}
    for run_id, passage_id in (
        RunEntry.objects.filter(run_id__in=list(orders), topic=topic)
        .order_by("run_id", "rank", "line_order", "passage_id")
        .values_list("run_id", "passage_id")
    ):
        orders[run_id].append(passage_id)
    ids = {pid for order in orders.values() for pid in order} | set(grades)
    ids |= set(judged[:, 2].tolist())
    external = external_ids(ids)
    return StoredTopic(subquestion_rows(topic), grades, judged, orders, external)


def subquestion_rows(topic: Topic) -> list[tuple[int, int, str]]:
    return list(
        SubQuestion.objects.filter(topic=topic, is_placeholder=False)
        .order_by("position")
        .values_list("pk", "position", "text")
    )


def run_order(topic: Topic, run_id: int | None) -> list[int]:
    """The run's passage ids for the topic in (rank, file line) order: some released run files
    give a whole topic one rank, so the rank alone cannot order them."""
    if run_id is None:
        return []
    return list(
        RunEntry.objects.filter(run_id=run_id, topic=topic)
        .order_by("rank", "line_order", "passage_id")
        .values_list("passage_id", flat=True)
    )


def preferred_grades(topic: Topic) -> dict[int, tuple[int, str]]:
    """passage id -> (grade, source); where sources disagree, the one with most rows wins."""
    rows = list(
        PassageQrel.objects.filter(topic=topic).values_list("passage_id", "source", "grade")
    )
    size = Counter(source for _, source, _ in rows)
    preference = {
        s: i for i, (s, _) in enumerate(sorted(size.items(), key=lambda x: (-x[1], x[0])))
    }
    grades: dict[int, tuple[int, str]] = {}
    for passage_id, source, grade in sorted(rows, key=lambda r: preference[r[1]], reverse=True):
        grades[passage_id] = (grade, source)  # most preferred source written last
    return grades


def rating_rows(topic: Topic) -> np.ndarray:
    """(N, 5) int64 rows of RATING_FIELDS for every passage-rating judgment of the topic, in one
    query: an unparsable rating reads UNPARSABLE, a missing passage NULL (the judge selector
    counts such rows, the matrix drops them), has_distribution 1 where the judgment stores a
    rating distribution (so a page learns without a query that a judge has none)."""
    judgments = Judgment.objects.filter(topic=topic, task=PASSAGE_RATING).annotate(
        has_distribution=Case(
            When(distribution__isnull=False, then=Value(1)),
            default=Value(0),
            output_field=IntegerField(),
        )
    )
    if connection.vendor != "postgresql":  # the SQLite demo: int_columns is PostgreSQL's
        rows = judgments.order_by().values_list(*RATING_FIELDS)
        array = np.array([[NULL if v is None else v for v in row] for row in rows], np.int64)
        return array.reshape(-1, len(RATING_FIELDS))
    return int_columns(judgments, RATING_FIELDS)


def rating_histograms(rows: np.ndarray) -> dict[int, dict[float, int]]:
    """judge id -> parsed rating -> count, from ``rating_rows``."""
    parsed = rows[rows[:, RATING] != UNPARSABLE]
    pairs, tally = np.unique(parsed[:, [JUDGE, RATING]], axis=0, return_counts=True)
    out: dict[int, dict[float, int]] = {}
    for (judge, rating), n in zip(pairs.tolist(), tally.tolist(), strict=True):
        out.setdefault(judge, {})[float(rating)] = n
    return out


def judgment_array(topic: Topic, rows: np.ndarray | None = None) -> np.ndarray:
    """(N, 4) int64 rows of (judge, sub-question, passage, rating) for the topic's passage
    ratings (``rows``: the topic's ``rating_rows``, when already read); an unparsable rating
    reads UNPARSABLE."""
    rows = rating_rows(topic) if rows is None else rows
    return rows[rows[:, PASSAGE] != NULL][:, :HAS_DISTRIBUTION]


def external_ids(passage_ids: Iterable[int]) -> dict[int, str]:
    """passage id -> external id."""
    ids = list(passage_ids)
    if connection.vendor != "postgresql":
        # Unordered: the model's default ordering would join the collection for nothing.
        return dict(Passage.objects.filter(pk__in=ids).order_by().values_list("pk", "external_id"))
    # One array parameter: an IN list of a few hundred ids costs Django and psycopg about
    # 3 ms to build and quote, three times what the query itself takes.
    pk = Passage._meta.pk.column
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {pk}, external_id FROM {Passage._meta.db_table} WHERE {pk} = ANY(%s)",
            [ids],
        )
        return dict(cursor.fetchall())
