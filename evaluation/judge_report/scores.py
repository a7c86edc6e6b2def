"""Per-(run, topic) scores of a collection's runs under one judge, for one metric and cutoff.

- every other metric (``metrics.metrics``: a leaderboard column flagged for the judge report)
  is read from the leaderboard's registered columns (``per_topic_values`` with
  ``LeaderboardParams(judge=..., k=...)``): whichever method registers it computes it; this
  module names none.
- ``ndcg`` is nDCG@k (``ir_measures``, trec_eval's linear gains) of each run's top k under the
  judge's passage relevance grades: the passage qrels whose source is the judge's name when there
  are any (a TREC qrels file imported as that judge's labels), else the judge's passage ratings,
  a passage's grade being its highest rating over the topic's sub-questions. A topic the judge
  graded no passage of, or graded none relevant (grade > 0), has no score; a run that ranks
  nothing for a graded topic scores 0 there.

Scores are NaN where undefined. Runs are in name order, topics in external-id order.
"""

from __future__ import annotations

from dataclasses import dataclass

import ir_measures
import numpy as np
from ir_measures import nDCG

from crux_app.inputs import (
    EvaluationInputError,
    collection_judges,
    qrels_sources,
    resolve_judge,
    resolve_runs,
)
from crux_app.judge_kinds import kind_label
from crux_app.models import Collection, Judge, Judgment, PassageQrel, RunEntry, Topic
from crux_app.query_arrays import int_columns
from evaluation.judge_report.metrics import NDCG, metric_keys
from evaluation.leaderboard.columns import LeaderboardParams, per_topic_values


@dataclass(frozen=True)
class Axes:
    """The runs (id, name) and topics (id, external id) of a score table."""

    runs: list[tuple[int, str]]
    topics: list[tuple[int, str]]

    @property
    def run_names(self) -> list[str]:
        return [name for _, name in self.runs]

    @property
    def topic_ids(self) -> list[int]:
        return [pk for pk, _ in self.topics]

    @property
    def topic_names(self) -> list[str]:
        return [name for _, name in self.topics]


def collection_axes(collection: Collection) -> Axes:
    topics = Topic.objects.filter(collection=collection).order_by("external_id")
    return Axes(resolve_runs(collection), list(topics.values_list("pk", "external_id")))


def judge_kind(name: str) -> str:
    """``llm`` or ``human`` for a Judge row, ``qrels`` for a name that is only a qrels source."""
    kind = Judge.objects.filter(name=name).values_list("kind", flat=True).first()
    return kind or "qrels"


def judge_kind_text(name: str) -> str:
    """The judge's kind as pages list it (``crux_app.judge_kinds``; "qrels" for a source)."""
    row = Judge.objects.filter(name=name).values_list("kind", "prompt_version").first()
    return kind_label(*row) if row else "qrels"


def _unknown(collection: Collection, name: str) -> EvaluationInputError:
    judges = ", ".join(repr(j.name) for j in collection_judges(collection)) or "none"
    sources = ", ".join(repr(s) for s, _ in qrels_sources(collection)) or "none"
    return EvaluationInputError(
        f"judge {name!r} has neither passage ratings nor passage qrels in collection "
        f"{collection.name!r}; judges there: {judges}; qrels sources: {sources}"
    )


def judge_grades(collection: Collection, name: str) -> np.ndarray:
    """(rows, 3) int array of (topic id, passage id, grade): the judge's relevance grades."""
    qrels = PassageQrel.objects.filter(topic__collection=collection, source=name)
    rows = int_columns(qrels, ["topic_id", "passage_id", "grade"])
    if rows.size:
        return rows
    if not Judge.objects.filter(name=name).exists():
        raise _unknown(collection, name)
    try:
        judge = resolve_judge(collection, name)
    except EvaluationInputError:
        raise _unknown(collection, name) from None
    ratings = Judgment.objects.filter(
        topic__collection=collection,
        judge_id=judge.id,
        task=Judgment.Task.PASSAGE_RATING,
        passage__isnull=False,
        rating__isnull=False,
    )
    rows = int_columns(ratings, ["topic_id", "passage_id", "rating"])
    if not rows.size:
        return rows
    # Highest rating per (topic, passage): sort by rating and keep the last of each pair.
    rows = rows[np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0]))]
    last = np.ones(len(rows), bool)
    last[:-1] = (rows[1:, 0] != rows[:-1, 0]) | (rows[1:, 1] != rows[:-1, 1])
    return rows[last]


Rankings = dict[int, dict[str, dict[str, float]]]


def top_k(axes: Axes, k: int) -> Rankings:
    """run id -> topic id (str) -> passage id (str) -> a score that keeps the run's order, for
    the first k passages in (rank, file line) order."""
    run_ids = [pk for pk, _ in axes.runs]
    entries = int_columns(
        RunEntry.objects.filter(run_id__in=run_ids),
        ["run_id", "topic_id", "passage_id", "rank", "line_order"],
    )
    entries = entries[np.lexsort((entries[:, 4], entries[:, 3], entries[:, 1], entries[:, 0]))]
    new_group = np.ones(len(entries), bool)
    new_group[1:] = (entries[1:, 0] != entries[:-1, 0]) | (entries[1:, 1] != entries[:-1, 1])
    starts = np.maximum.accumulate(np.where(new_group, np.arange(len(entries)), 0))
    position = np.arange(len(entries)) - starts
    keep = position < k
    out: dict[int, dict[str, dict[str, float]]] = {pk: {} for pk in run_ids}
    for run, topic, passage, pos in zip(
        entries[keep, 0].tolist(),
        entries[keep, 1].tolist(),
        entries[keep, 2].tolist(),
        position[keep].tolist(),
        strict=True,
    ):
        out[run].setdefault(str(topic), {})[str(passage)] = float(k - pos)
    return out


def ndcg_scores(
    collection: Collection, name: str, k: int, axes: Axes, rankings: Rankings | None = None
) -> np.ndarray:
    """(R, T) nDCG@k under the judge's grades (NaN where the topic has no relevant grade).
    ``rankings``: ``top_k(axes, k)`` when the caller already read it (both judges of a report
    share the runs' rankings: reading them once halves the report's largest read)."""
    grades = judge_grades(collection, name)
    qrels: dict[str, dict[str, int]] = {}
    for topic, passage, grade in grades.tolist():
        qrels.setdefault(str(topic), {})[str(passage)] = int(grade)
    evaluated = {q: g for q, g in qrels.items() if any(v > 0 for v in g.values())}
    topic_index = {str(pk): t for t, pk in enumerate(axes.topic_ids)}
    values = np.full((len(axes.runs), len(axes.topics)), np.nan)
    columns = [topic_index[q] for q in evaluated if q in topic_index]
    if not columns:
        return values
    values[:, columns] = 0.0
    evaluator = ir_measures.evaluator([nDCG @ k], evaluated)
    rankings = top_k(axes, k) if rankings is None else rankings
    for r, (pk, _) in enumerate(axes.runs):
        run = {q: docs for q, docs in rankings[pk].items() if q in evaluated}
        for metric in evaluator.iter_calc(run):
            values[r, topic_index[metric.query_id]] = float(metric.value)
    return values


def registered_scores(
    collection: Collection, name: str, metric: str, k: int, axes: Axes
) -> np.ndarray:
    """(R, T) per-topic values of a registered leaderboard column under the judge."""
    params = LeaderboardParams(judge=name, k=k)
    found = per_topic_values(collection, params, axes.run_names, [metric])
    if metric not in found:
        raise EvaluationInputError(
            f"no installed method gives per-topic {metric!r} values (a leaderboard column "
            f"registered with per-topic values); choose another metric"
        )
    table = found[metric]
    values = np.full((len(axes.runs), len(axes.topics)), np.nan)
    for r, run in enumerate(axes.run_names):
        for t, topic in enumerate(axes.topic_ids):
            value = table.get((run, topic))
            if value is not None:
                values[r, t] = value
    return values


def judge_scores(
    collection: Collection,
    name: str,
    metric: str,
    k: int,
    axes: Axes,
    rankings: Rankings | None = None,
) -> np.ndarray:
    """(R, T) scores of the axes' runs on its topics under the named judge (``rankings``: see
    ``ndcg_scores``)."""
    keys = metric_keys()
    if metric not in keys:
        raise EvaluationInputError(f"metric must be one of {', '.join(keys)}, got {metric!r}")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise EvaluationInputError(f"k must be an integer >= 1, got {k!r}")
    if metric == NDCG:
        return ndcg_scores(collection, name, k, axes, rankings)
    return registered_scores(collection, name, metric, k, axes)
