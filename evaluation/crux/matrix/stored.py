"""The stored rows a topic's coverage matrix reads: its sub-questions, the preferred qrel grade
of each passage, every judge's passage ratings as one array, and runs' passage orders. Loaded
per matrix, or once (``load_stored``) for the matrices of several runs."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from django.db.models import Value
from django.db.models.functions import Coalesce

from crux_app.models import Judgment, Passage, PassageQrel, RunEntry, SubQuestion, Topic

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING
UNPARSABLE = -1  # an unparsable rating's code (the ratings are 0..5)


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
    external = dict(Passage.objects.filter(pk__in=ids).values_list("pk", "external_id"))
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


def judgment_array(topic: Topic) -> np.ndarray:
    """(N, 4) int64 rows of (judge, sub-question, passage, rating) for the topic's passage
    ratings; an unparsable rating reads UNPARSABLE."""
    rows = (
        Judgment.objects.filter(topic=topic, task=PASSAGE_RATING, passage__isnull=False)
        .order_by()
        .annotate(r=Coalesce("rating", Value(UNPARSABLE)))
        .values_list("judge_id", "subquestion_id", "passage_id", "r")
    )
    array = np.array(list(rows), dtype=np.int64)
    return array.reshape(-1, 4)
