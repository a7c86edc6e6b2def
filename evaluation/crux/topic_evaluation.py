"""CRUX's per-topic values of a collection, or of some of its topics: what ``evaluate`` averages.

Every value here is a function of one topic's rows (its ratings, qrels, sub-questions, the runs'
rankings of it, its reports' labels), so a table computed for some topics merges with one
computed for the others into the table of all of them (``TopicRows`` of
``crux_app.unit_cache``): the leaderboard recomputes the topics a write touched and keeps the
rest. What depends on every topic is left to the assembly (``evaluate.assemble``): the means, the
rating counts (a histogram per topic here), and which threshold report labels are read with (a
judge's binary labels use 1, 0-5 ratings use tau: both are kept per topic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

import numpy as np

from crux_app.inputs import JudgeInfo
from crux_app.models import Collection
from evaluation.crux.collection_data import CollectionData, load_collection, report_ratings
from evaluation.crux.evaluation_params import EvaluationParams
from evaluation.crux.method.coverage import AnswerableSet, answerable_set, context_coverage
from evaluation.crux.method.coverage import report_coverage as report_coverage_batch
from evaluation.crux.oracle import oracle_arrays
from evaluation.crux.run_metrics import (
    SharedInputs,
    alpha_values,
    contexts,
    density_values,
    ranking_values,
    take,
)
from evaluation.crux.token_counts import token_count_table
from evaluation.leaderboard.columns import K_ORACLE

BINARY = 1.0  # the threshold of binary report labels (1 answers)


def _take_rows(value: object, idx: np.ndarray) -> object:
    """``value`` (an array, or a dataclass or dict of them, rows first) at rows ``idx``."""
    if isinstance(value, np.ndarray):
        return value[idx]
    if isinstance(value, dict):
        return {key: _take_rows(v, idx) for key, v in value.items()}
    return replace(
        value, **{f.name: _take_rows(getattr(value, f.name), idx) for f in fields(value)}
    )


def _concat_rows(values: list) -> object:
    """The rows of ``values`` (alike arrays, dataclasses or dicts of them) one after another."""
    first = values[0]
    if isinstance(first, np.ndarray):
        return np.concatenate(values)
    if isinstance(first, dict):
        return {key: _concat_rows([v[key] for v in values]) for key in first}
    return replace(
        first, **{f.name: _concat_rows([getattr(v, f.name) for v in values]) for f in fields(first)}
    )


@dataclass(frozen=True)
class RunTopics:
    """One run's values per topic (NaN where undefined)."""

    values: dict[str, np.ndarray]  # metric -> (T,)
    missing: np.ndarray  # (T,) unjudged (context passage, answerable question) triples
    status: np.ndarray  # (T,) why coverage is (un)defined: ``Status`` codes
    ranked: np.ndarray  # (T,) bool: the run ranks passages for the topic


@dataclass(frozen=True)
class ReportTopics:
    """One system's reports under one report judge, per topic, read with either threshold."""

    has_report: np.ndarray  # (T,) bool
    coverage_binary: np.ndarray  # (T,) mean over the topic's reports, threshold BINARY
    coverage_tau: np.ndarray  # (T,) the same with threshold tau
    missing_binary: np.ndarray  # (T,) unjudged answerable questions of its reports
    missing_tau: np.ndarray
    judged_max: np.ndarray  # (T,) the highest judged label of its reports, NaN if none

    @classmethod
    def absent(cls, n: int) -> ReportTopics:
        """No report of this system judged by this judge in ``n`` topics."""
        nan, zero = np.full(n, np.nan), np.zeros(n, np.int64)
        return cls(np.zeros(n, bool), nan, nan.copy(), zero, zero.copy(), nan.copy())


@dataclass(frozen=True)
class TopicEvaluation:
    """Per-topic values of some topics of a collection, by ascending topic id."""

    topic_ids: np.ndarray  # (T,)
    topic_names: np.ndarray  # (T,) external ids (objects)
    computed_oracle: np.ndarray  # (T,) bool
    histogram: np.ndarray  # (T, 7) the judge's passage ratings: unparsable, 0, ..., 5
    runs: dict[str, RunTopics]  # by run name, in the evaluation's run order
    reports: dict[tuple[str, str], ReportTopics]  # (system, judge)

    def keep(self, topic_ids: np.ndarray) -> TopicEvaluation:
        """The rows of these topics (sorted ids) only."""
        return self._take(np.flatnonzero(np.isin(self.topic_ids, topic_ids)))

    def merged(self, other: TopicEvaluation) -> TopicEvaluation:
        """These topics' rows and ``other``'s, by topic id."""
        keys = sorted(set(self.reports) | set(other.reports))
        parts = [
            replace(
                part,
                reports={
                    k: part.reports.get(k) or ReportTopics.absent(len(part.topic_ids)) for k in keys
                },
            )
            for part in (self, other)
        ]
        joined: TopicEvaluation = _concat_rows(parts)  # type: ignore[assignment]
        return joined._take(np.argsort(joined.topic_ids, kind="stable"))

    def _take(self, idx: np.ndarray) -> TopicEvaluation:
        return _take_rows(self, idx)  # type: ignore[return-value]


def _token_sums(ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Sum of token counts per row of a (T, K) id array (-1 = none); NaN if any is unknown.
    ``counts`` holds the count of each id (any value where the id is -1)."""
    return np.where(ids < 0, 0.0, counts).sum(axis=1)


def _reports(
    data: CollectionData,
    answerable: AnswerableSet,
    params: EvaluationParams,
    topics: Sequence[int] | None,
) -> dict[tuple[str, str], ReportTopics]:
    out = {}
    n = data.n_topics
    for reports in report_ratings(data, topics):
        # Several reports of one system for a topic: their mean, if all are defined.
        count = np.bincount(reports.topic, minlength=n)
        has_report = count > 0
        by_threshold = []
        for threshold in (BINARY, float(params.tau)):
            result = report_coverage_batch(
                reports.ratings, take(answerable, reports.topic), threshold, params.missing_as_zero
            )
            total = np.bincount(reports.topic, weights=result.value, minlength=n)
            mean = np.full(n, np.nan)
            mean[has_report] = total[has_report] / count[has_report]
            missing = np.bincount(reports.topic, weights=result.missing, minlength=n)
            by_threshold.append((mean, missing.astype(np.int64)))
        judged_max = np.full(n, -np.inf)
        labels = np.where(np.isnan(reports.ratings), -np.inf, reports.ratings)
        np.maximum.at(judged_max, reports.topic, labels.max(axis=1, initial=-np.inf))
        judged_max[np.isneginf(judged_max)] = np.nan
        (cov_binary, miss_binary), (cov_tau, miss_tau) = by_threshold
        out[(reports.system, reports.judge)] = ReportTopics(
            has_report, cov_binary, cov_tau, miss_binary, miss_tau, judged_max
        )
    return out


def evaluate_topics(
    collection: Collection,
    params: EvaluationParams,
    judge: JudgeInfo | None,
    source: str | None,
    runs: Sequence[tuple[int, str]],
    topics: Sequence[int] | None = None,
) -> TopicEvaluation:
    """The per-topic values of every topic of the collection, or of ``topics`` only."""
    depth = params.k if isinstance(params.k, int) else None
    data = load_collection(collection, judge, source, runs, depth, topics)
    oracle = oracle_arrays(data, params.tau, params.missing_as_zero)
    batch = data.batch(oracle.required)
    answerable = answerable_set(batch, params.tau)
    k = (
        oracle.required.sum(axis=1)
        if params.k == K_ORACLE
        else np.full(data.n_topics, params.k, np.int64)
    )
    shared = SharedInputs.build(batch, answerable, k, oracle, params.tau, params.alpha)

    run_contexts = {run.id: contexts(data, run, k) for run in data.runs}
    oracle_ids = np.where(oracle.required, data.row_passage, -1)
    ids = [oracle_ids] + [ids for _, ids in run_contexts.values()]
    counts = token_count_table(np.concatenate([i[i >= 0] for i in ids]), params.tokenizer)
    oracle_tokens = _token_sums(oracle_ids, counts.lookup(oracle_ids))

    results = {}
    for run in data.runs:
        rows, ids = run_contexts[run.id]
        coverage = context_coverage(batch, rows, answerable, params.tau, params.missing_as_zero)
        context_tokens = _token_sums(ids, counts.lookup(ids))
        raw, norm = density_values(coverage, context_tokens, oracle_tokens, params.gamma)
        values = {
            "coverage": coverage.value,
            "alpha_ndcg": alpha_values(shared, rows),
            "density": raw,
            "density_norm": norm,
            **ranking_values(data, run, oracle, shared, params.min_relevance),
        }
        results[run.name] = RunTopics(
            values, coverage.missing, coverage.status, run.topics_ranked(data.n_topics)
        )
    return TopicEvaluation(
        topic_ids=data.topic_ids,
        topic_names=np.array(data.topic_names, dtype=object),
        computed_oracle=oracle.computed,
        histogram=data.rating_histogram,
        runs=results,
        reports=_reports(data, answerable, params, topics),
    )
