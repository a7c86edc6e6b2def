"""The rows a topic's coverage matrix reads, cached under the collection's data version.

Reading them (every judge's ratings of the topic, its sub-questions, qrel grades, judges, runs
and passage ids) is most of a matrix request; computing the matrix from them takes a couple of
milliseconds. They are cached in Django's cache under the topic and its collection's data
version (``crux_app.data_version``: a new token whenever a judgment, qrels row, run, topic,
sub-question, passage or judge of the collection changes), so every selector combination of
the page (judge, run, tau, k, colour) is computed from them without a query, and a write (a
researcher's own rating on this page included) makes the next request read them afresh.

The view reads the topic with its collection (and so the version) before anything it caches:
a write that commits in between leaves the new rows under the old version, never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crux_app.derived_cache import get_or_compute
from crux_app.models import RunEntry, Topic
from evaluation.crux.matrix.matrix import MatrixOptions, RunChoice, matrix_options
from evaluation.crux.matrix.stored import (
    PASSAGE,
    StoredTopic,
    external_ids,
    judgment_array,
    preferred_grades,
    rating_rows,
    subquestion_rows,
)

# Bumped when what is cached changes shape, so a shared cache never hands old pickles over.
CACHE_FORMAT = 1


@dataclass(frozen=True)
class TopicRows:
    """What every matrix of the topic reads, whichever run it shows."""

    ratings: np.ndarray  # ``rating_rows``
    options: MatrixOptions
    subquestions: list[tuple[int, int, str]]
    grades: dict[int, tuple[int, str]]
    external_ids: dict[int, str]  # of the judged and the graded passages


@dataclass(frozen=True)
class RunRows:
    order: list[int]  # the run's passage ids for the topic in (rank, line) order
    external_ids: dict[int, str]


def cache_key(topic: Topic, part: str) -> str:
    """The key of one cached ``part`` of the topic's matrix rows at its current data version."""
    version = topic.collection.data_version.hex
    return f"crux-matrix:{CACHE_FORMAT}:{topic.pk}:{version}:{part}"


def topic_rows(topic: Topic) -> TopicRows:
    """The topic's rows, from the cache or read (six queries) and cached."""
    return get_or_compute(cache_key(topic, "topic"), lambda: read_topic_rows(topic))


def run_rows(topic: Topic, run: RunChoice | None) -> RunRows:
    """The run's order of the topic's passages, from the cache or read (one query)."""
    if run is None:
        return RunRows([], {})
    return get_or_compute(cache_key(topic, f"run:{run.id}"), lambda: read_run_rows(topic, run.id))


def read_topic_rows(topic: Topic) -> TopicRows:
    ratings = rating_rows(topic)
    grades = preferred_grades(topic)
    judged = set(judgment_array(topic, ratings)[:, PASSAGE].tolist())
    return TopicRows(
        ratings=ratings,
        options=matrix_options(topic, ratings),
        subquestions=subquestion_rows(topic),
        grades=grades,
        external_ids=external_ids(judged | set(grades)),
    )


def read_run_rows(topic: Topic, run_id: int) -> RunRows:
    rows = list(
        RunEntry.objects.filter(run_id=run_id, topic=topic)
        .order_by("rank", "line_order", "passage_id")
        .values_list("passage_id", "passage__external_id")
    )
    return RunRows([pid for pid, _ in rows], dict(rows))


def stored_topic(
    topic: Topic, rows: TopicRows, run: RunChoice | None, ranked: RunRows
) -> StoredTopic:
    """The rows as ``build_matrix`` takes them."""
    return StoredTopic(
        subquestions=rows.subquestions,
        grades=rows.grades,
        judged=judgment_array(topic, rows.ratings),
        run_orders={run.id: ranked.order} if run is not None else {},
        external_ids={**ranked.external_ids, **rows.external_ids},
    )
