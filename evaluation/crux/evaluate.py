"""Per-run CRUX evaluation of a collection: coverage, alpha-nDCG, density and ranking metrics.

Semantics (METHODS section 1): the oracle O of a topic is its grade-3 passages in the chosen
qrels source; a topic without qrels there gets O from the greedy required subset over the
judge's ratings (and its computed grades serve as its qrels for the ranking metrics). A run's
context is its top-k per topic (k, or |O| for ``k="oracle"``); a topic the run does not rank
is an empty context. Run values are means over the topics where a value is defined; how many
topics were left out, and why, is reported next to them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from crux_app.inputs import (
    EvaluationInputError,
    JudgeInfo,
    resolve_judge,
    resolve_qrels_source,
    resolve_runs,
)
from crux_app.models import Collection
from crux_app.unit_cache import per_topic
from evaluation.crux.collection_data import histogram_counts
from evaluation.crux.evaluation_params import EvaluationParams
from evaluation.crux.method.coverage import REASONS, Status
from evaluation.crux.token_counts import WHITESPACE, configured_tokenizer
from evaluation.crux.topic_evaluation import (
    BINARY,
    ReportTopics,
    TopicEvaluation,
    evaluate_topics,
)
from evaluation.leaderboard.columns import K_ORACLE

METRICS = ("coverage", "alpha_ndcg", "density", "density_norm", "ndcg", "map", "recall", "rprec")
RECORD_KEYS = ("run", *METRICS, "missing_judgments", "topics")


def _number(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _mean(values: np.ndarray) -> float | None:
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if defined.size else None


@dataclass(frozen=True)
class RunResult:
    """One run: per-topic values (T,) by metric, NaN where undefined."""

    name: str
    values: dict[str, np.ndarray]
    missing: np.ndarray  # (T,) unjudged (context passage, answerable question) triples
    reasons: list[str | None]  # why coverage is undefined, per topic
    ranked: np.ndarray  # (T,) bool: the run ranks passages for the topic

    def mean(self, metric: str) -> float | None:
        return _mean(self.values[metric])


@dataclass(frozen=True)
class ReportResult:
    """Coverage of one system's generated reports under one report judge."""

    system: str
    judge: str
    coverage: np.ndarray  # (T,) NaN where the topic has no judged report or it is undefined
    has_report: np.ndarray  # (T,) bool
    missing: int
    threshold: float

    @property
    def mean(self) -> float | None:
        return _mean(self.coverage)


@dataclass(frozen=True)
class Evaluation:
    collection: Collection
    params: EvaluationParams
    judge: JudgeInfo | None
    qrels_source: str | None
    topic_ids: np.ndarray
    topic_names: list[str]
    computed_oracle: np.ndarray  # (T,) bool
    runs: list[RunResult]
    reports: list[ReportResult] = field(default_factory=list)
    # The judge's passage ratings in the collection, counted from the rows read: rating ->
    # count, and unparsable ones (what judge_warnings.collection_rating_counts queries).
    rating_counts: tuple[dict[float, int], int] = field(default_factory=lambda: ({}, 0))

    def topics_summary(self, run: RunResult) -> dict[str, int]:
        return {
            "evaluated": len(self.topic_names),
            "undefined_coverage": int(np.isnan(run.values["coverage"]).sum()),
            # Of those, topics whose answerable set hinges on unjudged required passages.
            "unjudged_oracle": int(sum(r == REASONS[Status.UNJUDGED_ORACLE] for r in run.reasons)),
            "computed_oracle": int(self.computed_oracle.sum()),
            "not_ranked": int((~run.ranked).sum()),
        }

    def record(self, run: RunResult) -> dict[str, object]:
        """The run's record: keys exactly RECORD_KEYS, None where undefined."""
        return {
            "run": run.name,
            **{m: run.mean(m) for m in METRICS},
            "missing_judgments": int(run.missing.sum()),
            "topics": self.topics_summary(run),
        }

    def per_topic(self, run: RunResult) -> list[dict[str, object]]:
        return [
            {
                "topic": name,
                **{m: _number(run.values[m][t]) for m in METRICS},
                "missing_judgments": int(run.missing[t]),
                "oracle": "computed" if self.computed_oracle[t] else "qrels",
                "reason": run.reasons[t],
            }
            for t, name in enumerate(self.topic_names)
        ]

    def records(self) -> list[dict[str, object]]:
        return [self.record(run) for run in self.runs]

    def metric_table(self) -> dict[str, dict[str, float | None]]:
        """metric -> run name -> mean value (Kendall tau input)."""
        return {m: {run.name: run.mean(m) for run in self.runs} for m in METRICS}

    def report_records(self) -> list[dict[str, object]]:
        return [
            {
                "system": r.system,
                "judge": r.judge,
                "coverage": r.mean,
                "missing_judgments": r.missing,
                "topics": {
                    "with_report": int(r.has_report.sum()),
                    "undefined_coverage": int((r.has_report & np.isnan(r.coverage)).sum()),
                },
                "threshold": r.threshold,
            }
            for r in self.reports
        ]


def _report_result(system: str, judge: str, topics: ReportTopics, tau: float) -> ReportResult:
    """One (system, judge)'s reports: binary labels (none above 1) read with threshold 1, a
    judge that rated reports 0-5 with tau, as for passages."""
    judged = topics.judged_max[~np.isnan(topics.judged_max)]
    binary = judged.size == 0 or judged.max() <= BINARY
    return ReportResult(
        system,
        judge,
        topics.coverage_binary if binary else topics.coverage_tau,
        topics.has_report,
        int((topics.missing_binary if binary else topics.missing_tau).sum()),
        BINARY if binary else float(tau),
    )


def assemble(
    collection: Collection,
    params: EvaluationParams,
    inputs: EvaluationInputs,
    table: TopicEvaluation,
) -> Evaluation:
    """The evaluation of the collection from its per-topic values (all topics)."""
    reasons = {int(status): REASONS[status] for status in Status}
    runs = [
        RunResult(
            name,
            run.values,
            run.missing,
            [reasons[s] for s in run.status.tolist()],
            run.ranked,
        )
        for name, run in table.runs.items()
    ]
    reports = [
        _report_result(system, judge, topics, params.tau)
        for (system, judge), topics in sorted(table.reports.items())
    ]
    return Evaluation(
        collection=collection,
        params=params,
        judge=inputs.judge,
        qrels_source=inputs.source,
        topic_ids=table.topic_ids,
        topic_names=table.topic_names.tolist(),
        computed_oracle=table.computed_oracle,
        runs=runs,
        reports=reports,
        rating_counts=histogram_counts(table.histogram.sum(axis=0)),
    )


@dataclass(frozen=True)
class EvaluationInputs:
    """What the evaluation reads besides its parameters, resolved from the collection."""

    judge: JudgeInfo | None
    source: str | None
    runs: list[tuple[int, str]]

    def identity(self) -> tuple:
        """What the per-topic values depend on: the judge's identity, not its counts."""
        judge = (self.judge.id, self.judge.name) if self.judge else None
        return (judge, self.source, tuple(self.runs))


def evaluation_inputs(collection: Collection, params: EvaluationParams) -> EvaluationInputs:
    """The judge, qrels source and runs of ``params`` (EvaluationInputError lists what exists)."""
    allowed = {None, WHITESPACE, configured_tokenizer()}
    if params.tokenizer not in allowed:
        raise EvaluationInputError(
            f"tokenizer {params.tokenizer!r} is not available; use {WHITESPACE!r} or the "
            f"configured TOKENIZER_MODEL ({configured_tokenizer()!r})"
        )
    return EvaluationInputs(
        resolve_judge(collection, params.judge),
        resolve_qrels_source(collection, params.qrels_source),
        resolve_runs(collection, params.run),
    )


def evaluate(collection: Collection, params: EvaluationParams | None = None) -> Evaluation:
    """Evaluate every run (or ``params.run``) of the collection: every topic computed."""
    params = params or EvaluationParams()
    inputs = evaluation_inputs(collection, params)
    table = evaluate_topics(collection, params, inputs.judge, inputs.source, inputs.runs)
    return assemble(collection, params, inputs, table)


# The unit cache's part: the per-topic values under one judge, parameters and runs.
TOPIC_PART = "crux-evaluation"


def evaluate_cached(collection: Collection, params: EvaluationParams | None = None) -> Evaluation:
    """``evaluate``'s result, with the per-topic values of the topics no write touched since
    they were computed read from the unit cache (``crux_app.unit_cache``): only the others
    are computed, and the means are taken afresh."""
    params = params or EvaluationParams()
    inputs = evaluation_inputs(collection, params)
    identity = (params, inputs.identity(), configured_tokenizer())

    def compute(topics: np.ndarray | None) -> TopicEvaluation:
        only = None if topics is None else topics.tolist()
        return evaluate_topics(collection, params, inputs.judge, inputs.source, inputs.runs, only)

    table = per_topic(collection.pk, TOPIC_PART, identity, compute)
    return assemble(collection, params, inputs, table)


__all__ = [
    "K_ORACLE",
    "METRICS",
    "RECORD_KEYS",
    "Evaluation",
    "EvaluationParams",
    "RunResult",
    "evaluate",
    "evaluate_cached",
]
