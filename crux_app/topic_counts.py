"""Counts every page that offers a judge or a qrels source needs, kept per topic.

How many passage ratings each judge gave in a collection, and how many passage qrels each
source holds: counting them scans every judgment (seconds at 5,000 topics) or every qrel of the
collection, and the data version moves with every write; so they are kept per topic in the
unit cache (``crux_app.unit_cache``) and a write recounts only the topics it touched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from django.db.models import Count

from crux_app.models import Collection, Judgment, PassageQrel
from crux_app.query_arrays import NULL, int_columns
from crux_app.unit_cache import TopicColumns, per_topic

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING
JUDGE_COUNTS = "passage-judge-counts"  # the unit cache's parts
QREL_SOURCES = "qrels-source-counts"


def _rows_of(model, collection: Collection, topics: np.ndarray | None):
    rows = model.objects.all()
    if topics is None:
        return rows.filter(topic__collection=collection)
    return rows.filter(topic_id__in=topics.tolist())


def _count_ratings(collection: Collection, topics: np.ndarray | None) -> TopicColumns:
    judgments = _rows_of(Judgment, collection, topics).filter(task=PASSAGE_RATING)
    grouped = judgments.values("topic_id", "judge_id", "rating").annotate(n=Count("pk"))
    rows = int_columns(grouped, ["topic_id", "judge_id", "rating", "n"])
    return TopicColumns(rows[:, 0], {"judge": rows[:, 1], "rating": rows[:, 2], "n": rows[:, 3]})


@dataclass(frozen=True)
class JudgeTally:
    """One judge's passage ratings in the collection."""

    n_judgments: int
    n_topics: int
    histogram: dict[float, int]  # rating -> ratings
    n_unparsable: int


def judge_tallies(collection: Collection) -> dict[int, JudgeTally]:
    """Judge id -> its tally, for every judge that rated passages of the collection."""
    table = per_topic(collection.pk, JUDGE_COUNTS, (), lambda t: _count_ratings(collection, t))
    judges, ratings, counts = (table.columns[k] for k in ("judge", "rating", "n"))
    out = {}
    for judge in np.unique(judges).tolist():
        mine = judges == judge
        # Ratings are NULL or 0..5 (the judgment_rating_range check constraint).
        by_rating = np.bincount(ratings[mine] - NULL, weights=counts[mine], minlength=7)
        by_rating = by_rating.astype(np.int64)
        out[judge] = JudgeTally(
            n_judgments=int(counts[mine].sum()),
            n_topics=len(np.unique(table.topic_ids[mine])),
            histogram={float(r): int(n) for r, n in enumerate(by_rating[1:].tolist()) if n},
            n_unparsable=int(by_rating[0]),
        )
    return out


def _count_sources(collection: Collection, topics: np.ndarray | None) -> TopicColumns:
    grouped = (
        _rows_of(PassageQrel, collection, topics)
        .order_by()
        .values_list("topic_id", "source")
        .annotate(n=Count("pk"))
    )
    rows = list(grouped)
    return TopicColumns(
        np.array([r[0] for r in rows], np.int64),
        {
            "source": np.array([r[1] for r in rows], dtype=object),
            "n": np.array([r[2] for r in rows], np.int64),
        },
    )


def source_counts(collection: Collection) -> dict[str, int]:
    """Qrels source -> passage qrels of the collection under it."""
    table = per_topic(collection.pk, QREL_SOURCES, (), lambda t: _count_sources(collection, t))
    totals: Counter[str] = Counter()
    for source, n in zip(
        table.columns["source"].tolist(), table.columns["n"].tolist(), strict=True
    ):
        totals[source] += n
    return dict(totals)
