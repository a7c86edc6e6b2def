"""Load one collection's judgments, qrels and runs into the arrays the CRUX metrics read.

A handful of queries whose integer columns arrive packed into numpy arrays
(``stored_arrays``); nothing is fetched per topic, per run or per passage, and no row becomes
a Python object. Rows of a topic's ratings matrix are the passages that belong to the
topic, in ascending id order: the ones the selected judge rated for it, the ones with a qrel
for it (any source), and the ranked passages that another judge rated for it or whose id
follows CRUX's ``<topic>:<doc>#<passage>`` convention. Any other ranked passage is a passage
of another topic: ``OUTSIDE``, rating 0 on every sub-question, as CRUX counts it. A row the
selected judge did not rate stays NaN (unjudged), so it is counted, never silently 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from crux_app.inputs import JudgeInfo
from crux_app.models import Collection, GeneratedOutput, Judge, Judgment, Passage, Topic
from crux_app.query_arrays import int_columns
from evaluation.crux.method.crux_ratings import OUTSIDE, RatingsBatch
from evaluation.crux.stored_arrays import (
    IdBounds,
    id_bounds,
    judged_rows,
    qrel_rows,
    run_rows,
    subquestions,
    topic_scope,
)

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING
REPORT_COVERAGE = Judgment.Task.REPORT_COVERAGE


@dataclass(frozen=True)
class RunRanking:
    """One run's rankings, flat and sorted by (topic, position); position is 0-based in
    (rank, file line) order, because some imported runs repeat one rank for a whole topic."""

    id: int
    name: str
    topic: np.ndarray  # (N,) topic index
    passage: np.ndarray  # (N,) passage id
    position: np.ndarray  # (N,)

    def topics_ranked(self, n_topics: int) -> np.ndarray:
        """(T,) bool: the run ranks at least one passage for the topic."""
        out = np.zeros(n_topics, bool)
        out[self.topic] = True
        return out


@dataclass(frozen=True)
class CollectionData:
    """One judge's ratings of a collection's topics, the chosen qrels and the runs."""

    collection: Collection
    judge: JudgeInfo | None  # None: no judge rated the collection's passages
    topic_ids: np.ndarray  # (T,)
    topic_names: list[str]  # external ids
    row_passage: np.ndarray  # (T, P) passage id of each row, -1 for padding
    question_ids: np.ndarray  # (T, Q) sub-question id of each column, -1 for padding
    ratings: np.ndarray  # (T, P, Q) the judge's ratings, NaN = unjudged or unparsable
    passage_valid: np.ndarray  # (T, P)
    question_valid: np.ndarray  # (T, Q): real sub-questions (no placeholder, no padding)
    qrels_source: str | None
    # The qrels of qrels_source, sorted by (topic, passage id).
    qrel_topic: np.ndarray  # (N,) topic index
    qrel_passage: np.ndarray  # (N,) passage id
    qrel_grade: np.ndarray  # (N,)
    runs: list[RunRanking]
    row_keys: np.ndarray  # sorted topic * base + passage id of every row
    row_index: np.ndarray  # row of each key
    base: int
    rating_histogram: np.ndarray  # (T, 7) the judge's passage ratings: unparsable, 0, ..., 5

    @property
    def n_topics(self) -> int:
        return len(self.topic_names)

    @cached_property
    def qrels(self) -> list[dict[int, int]]:
        """Per topic: passage id -> grade, from qrels_source."""
        out: list[dict[int, int]] = [{} for _ in range(self.n_topics)]
        for t, p, g in zip(
            self.qrel_topic.tolist(),
            self.qrel_passage.tolist(),
            self.qrel_grade.tolist(),
            strict=True,
        ):
            out[t][p] = g
        return out

    def rating_counts(self) -> tuple[dict[float, int], int]:
        """(rating -> how many of the judge's passage ratings, unparsable ones)."""
        return histogram_counts(self.rating_histogram.sum(axis=0))

    def batch(self, required: np.ndarray) -> RatingsBatch:
        return RatingsBatch(self.ratings, self.passage_valid, self.question_valid, required)

    def rows_of(self, topic: np.ndarray, passage: np.ndarray) -> np.ndarray:
        """Row index of each (topic index, passage id), ``OUTSIDE`` where it has none."""
        keys = np.asarray(topic, np.int64) * self.base + np.asarray(passage, np.int64)
        if not len(self.row_keys):  # no row at all (nothing judged, no qrels)
            return np.full(keys.shape, OUTSIDE)
        at = np.searchsorted(self.row_keys, keys)
        at_clipped = np.minimum(at, len(self.row_keys) - 1)
        found = (at < len(self.row_keys)) & (self.row_keys[at_clipped] == keys)
        return np.where(found, self.row_index[at_clipped], OUTSIDE)


def histogram_counts(histogram: np.ndarray) -> tuple[dict[float, int], int]:
    """(rating -> count, unparsable) of a (7,) histogram: unparsable, 0, ..., 5."""
    counts = {float(r): int(n) for r, n in enumerate(histogram[1:].tolist()) if n}
    return counts, int(histogram[0])


def _index(sorted_ids: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Position of each id in ``sorted_ids`` (which must contain it)."""
    return np.searchsorted(sorted_ids, ids)


def _load_runs(
    collection: Collection,
    runs: Sequence[tuple[int, str]],
    topic_ids: np.ndarray,
    bounds: IdBounds,
    topics: Sequence[int] | None = None,
) -> list[RunRanking]:
    # Rank order = (rank, line order) within (run, topic); the sort is done here, not in SQL.
    entries = run_rows(collection, [pk for pk, _ in runs], topic_ids, bounds, topics)
    out = []
    for pk, name in runs:
        start, end = entries.starts[pk]
        t = _index(topic_ids, entries.topic[start:end])
        first = np.searchsorted(t, t, side="left")
        out.append(RunRanking(pk, name, t, entries.passage[start:end], np.arange(len(t)) - first))
    return out


def _ranked_members(
    collection: Collection,
    runs: list[RunRanking],
    depth: int | None,
    known: np.ndarray,
    base: int,
    topic_ids: np.ndarray,
    topic_names: list[str],
    topics: Sequence[int] | None = None,
) -> np.ndarray:
    """Row keys (topic index * base + passage id) of ranked passages (within ``depth``) that
    belong to the topic although the judge did not rate them and no qrel names them: another
    judge rated them for the topic, or their id follows ``<topic>:<doc>#<passage>``."""
    ranked = [
        (run.topic * base + run.passage)[run.position < depth if depth is not None else slice(None)]
        for run in runs
    ]
    keys = _sorted_union(*ranked) if ranked else np.zeros(0, np.int64)
    candidates = keys[~_contains(known, keys)]
    if not len(candidates):
        return candidates
    topic, passage = candidates // base, candidates % base
    passage_ids = np.unique(passage)
    external = dict(
        Passage.objects.filter(pk__in=passage_ids.tolist()).values_list("pk", "external_id")
    )
    pairs = int_columns(
        Judgment.objects.filter(
            task=PASSAGE_RATING,
            passage_id__in=passage_ids.tolist(),
            **topic_scope(collection, topics),
        ),
        ["topic_id", "passage_id"],
    )
    rated = np.unique(_index(topic_ids, pairs[:, 0]) * base + pairs[:, 1])
    named = [
        external[p].startswith(f"{topic_names[t]}:")
        for t, p in zip(topic.tolist(), passage.tolist(), strict=True)
    ]
    return candidates[_contains(rated, candidates) | np.array(named, bool)]


def _contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each key is in ``sorted_keys`` (sorted, unique)."""
    if not len(sorted_keys):
        return np.zeros(len(keys), bool)
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[at] == keys


def _sorted_union(*arrays: np.ndarray) -> np.ndarray:
    """Sorted distinct values of the arrays (a sort, which is quick on sorted input, where
    ``np.union1d`` hashes every value)."""
    values = np.sort(np.concatenate(arrays))
    keep = np.ones(len(values), bool)
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _question_cells(
    question_ids: np.ndarray, q_topic: np.ndarray, wanted: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Topic index (-1: not a sub-question of the collection) and position (column) of each
    wanted sub-question id. A table over the id range when it is compact (the look-ups are
    millions), else a search."""
    q_col = np.arange(len(question_ids)) - np.searchsorted(q_topic, q_topic, side="left")
    if not len(question_ids) or not len(wanted):
        return np.full(len(wanted), -1, np.int64), np.zeros(len(wanted), np.int64)
    low = min(int(question_ids.min()), int(wanted.min()))
    high = max(int(question_ids.max()), int(wanted.max()))
    if high - low < 4 * (len(question_ids) + len(wanted)):
        topic = np.full(high - low + 1, -1, np.int64)
        column = np.zeros(high - low + 1, np.int64)
        topic[question_ids - low], column[question_ids - low] = q_topic, q_col
        at = wanted - low
        return topic[at], column[at]
    order = np.argsort(question_ids)
    at = order[np.minimum(np.searchsorted(question_ids[order], wanted), len(order) - 1)]
    return np.where(question_ids[at] == wanted, q_topic[at], -1), q_col[at]


def load_collection(
    collection: Collection,
    judge: JudgeInfo | None,
    qrels_source: str | None,
    runs: Sequence[tuple[int, str]],
    depth: int | None = None,
    topics: Sequence[int] | None = None,
) -> CollectionData:
    """Ratings, qrels and rankings of ``runs``; ``depth`` bounds the ranked positions whose
    passages can add rows (None: every position). ``topics``: these topics of the collection
    only (a topic's arrays do not depend on the other topics)."""
    found = Topic.objects.filter(collection=collection)
    if topics is not None:
        found = found.filter(pk__in=[int(t) for t in topics])
    rows = list(found.order_by("pk").values_list("pk", "external_id"))
    topic_ids = np.array([pk for pk, _ in rows], dtype=np.int64)
    topic_names = [name for _, name in rows]
    n_topics = len(rows)
    bounds = id_bounds()

    questions = subquestions(collection, topics)
    q_topic = _index(topic_ids, questions[:, 0])
    q_col = np.arange(len(questions)) - np.searchsorted(q_topic, q_topic, side="left")
    n_q = int(q_col.max(initial=-1)) + 1
    question_ids = np.full((n_topics, n_q), -1, np.int64)
    question_ids[q_topic, q_col] = questions[:, 1]
    question_valid = np.zeros((n_topics, n_q), bool)
    question_valid[q_topic, q_col] = questions[:, 2] == 0

    judged = judged_rows(collection, judge, topic_ids, bounds, topics)
    qrels = qrel_rows(collection, qrels_source, topic_ids, bounds, topics)
    run_rankings = _load_runs(collection, runs, topic_ids, bounds, topics)

    base = 1 + max(
        [int(judged.pair_passage.max(initial=0)), int(qrels.any_passage.max(initial=0))]
        + [int(r.passage.max(initial=0)) for r in run_rankings]
    )
    # Sorted by (topic id, passage id), so the keys come out sorted too.
    judged_keys = _index(topic_ids, judged.pair_topic) * base + judged.pair_passage
    qrel_keys = _index(topic_ids, qrels.any_topic) * base + qrels.any_passage
    known = _sorted_union(judged_keys, qrel_keys)
    members = _ranked_members(
        collection, run_rankings, depth, known, base, topic_ids, topic_names, topics
    )
    row_keys = _sorted_union(known, members)
    row_topic = row_keys // base
    row_index = np.arange(len(row_keys)) - np.searchsorted(row_topic, row_topic, side="left")
    n_p = int(row_index.max(initial=-1)) + 1
    row_passage = np.full((n_topics, n_p), -1, np.int64)
    row_passage[row_topic, row_index] = row_keys % base
    passage_valid = row_passage >= 0

    ratings = np.full((n_topics, n_p, n_q), np.nan)
    if len(judged) and len(questions):
        pair_topic = _index(topic_ids, judged.pair_topic)
        pair_row = row_index[np.searchsorted(row_keys, judged_keys)]
        pair_cell = (pair_topic * n_p + pair_row) * n_q
        flat = ratings.reshape(-1)
        for chunk in judged.chunks():
            topic, column = _question_cells(questions[:, 1], q_topic, chunk.subquestion)
            # A judgment filed under another topic than its sub-question's is not placed.
            same = topic == pair_topic[chunk.pair]
            values = chunk.rating[same].astype(np.float64)
            values[values < 0] = np.nan
            flat[pair_cell[chunk.pair[same]] + column[same]] = values

    return CollectionData(
        collection=collection,
        judge=judge,
        topic_ids=topic_ids,
        topic_names=topic_names,
        row_passage=row_passage,
        question_ids=question_ids,
        ratings=ratings,
        passage_valid=passage_valid,
        question_valid=question_valid,
        qrels_source=qrels_source,
        qrel_topic=_index(topic_ids, qrels.topic),
        qrel_passage=qrels.passage,
        qrel_grade=qrels.grade,
        runs=run_rankings,
        row_keys=row_keys,
        row_index=row_index,
        base=base,
        rating_histogram=judged.histogram,
    )


@dataclass(frozen=True)
class ReportRatings:
    """One judge's ratings of one system's reports: one row per report (R, Q), NaN = unjudged
    or unparsable; ``topic`` is each report's topic index."""

    system: str
    judge: str
    topic: np.ndarray  # (R,)
    ratings: np.ndarray  # (R, Q)


def report_ratings(
    data: CollectionData, topics: Sequence[int] | None = None
) -> list[ReportRatings]:
    """Report-coverage judgments of the collection's generated reports (of ``topics`` only),
    per (system, judge)."""
    rows = int_columns(
        Judgment.objects.filter(
            task=REPORT_COVERAGE, output__isnull=False, **topic_scope(data.collection, topics)
        ),
        ["output_id", "topic_id", "subquestion_id", "judge_id", "rating"],
    )
    if not len(rows):
        return []
    systems = dict(
        GeneratedOutput.objects.filter(pk__in=np.unique(rows[:, 0]).tolist()).values_list(
            "pk", "system"
        )
    )
    judges = dict(
        Judge.objects.filter(pk__in=np.unique(rows[:, 3]).tolist()).values_list("pk", "name")
    )
    present = data.question_ids >= 0
    flat_ids = data.question_ids[present]
    order = np.argsort(flat_ids)
    sq_sorted, sq_where = flat_ids[order], np.argwhere(present)[order]
    at = np.minimum(np.searchsorted(sq_sorted, rows[:, 2]), len(sq_sorted) - 1)
    topic = np.searchsorted(data.topic_ids, rows[:, 1])
    # Judgments of another collection's sub-question, or filed under another topic, are skipped.
    placed = (sq_sorted[at] == rows[:, 2]) & (sq_where[at, 0] == topic)
    rows, topic, column = rows[placed], topic[placed], sq_where[at[placed], 1]
    groups: dict[tuple[str, str], list[int]] = {}
    for output_id, judge_id in np.unique(rows[:, [0, 3]], axis=0).tolist():
        groups.setdefault((systems[output_id], judges[judge_id]), []).append(output_id)
    out = []
    for (system, judge), outputs in sorted(groups.items()):
        judge_id = next(pk for pk, name in judges.items() if name == judge)
        mine = (rows[:, 3] == judge_id) & np.isin(rows[:, 0], outputs)
        report_row = np.searchsorted(outputs, rows[mine, 0])
        ratings = np.full((len(outputs), data.question_ids.shape[1]), np.nan)
        values = rows[mine, 4].astype(np.float64)
        ratings[report_row, column[mine]] = np.where(values < 0, np.nan, values)
        report_topic = np.zeros(len(outputs), np.int64)
        report_topic[report_row] = topic[mine]
        out.append(ReportRatings(system, judge, report_topic, ratings))
    return out
