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
from dataclasses import dataclass, field, fields

import numpy as np

from crux_app.inputs import (
    EvaluationInputError,
    JudgeInfo,
    resolve_judge,
    resolve_qrels_source,
    resolve_runs,
)
from crux_app.models import Collection
from evaluation.crux.collection_data import CollectionData, load_collection, report_ratings
from evaluation.crux.method.alpha_ndcg import DEFAULT_ALPHA
from evaluation.crux.method.coverage import (
    REASONS,
    AnswerableSet,
    Status,
    answerable_set,
    context_coverage,
    report_coverage,
)
from evaluation.crux.method.density import DEFAULT_GAMMA
from evaluation.crux.oracle import oracle_arrays
from evaluation.crux.run_metrics import (
    SharedInputs,
    alpha_values,
    contexts,
    density_values,
    ranking_values,
    take,
)
from evaluation.crux.token_counts import WHITESPACE, configured_tokenizer, token_count_table
from evaluation.leaderboard.columns import K_ORACLE, LeaderboardParams

METRICS = ("coverage", "alpha_ndcg", "density", "density_norm", "ndcg", "map", "recall", "rprec")
RECORD_KEYS = ("run", *METRICS, "missing_judgments", "topics")


@dataclass(frozen=True)
class EvaluationParams:
    judge: str | None = None  # judge name; None = crux_app.judge_choice's default
    tau: float = 3.0
    k: int | str = 10  # or K_ORACLE: |O| per topic
    qrels_source: str | None = None  # None = the source with the most rows
    run: str | None = None  # None = every run
    missing_as_zero: bool = False
    min_relevance: int = 1
    tokenizer: str | None = None  # None = the configured one (token_counts)
    gamma: float = DEFAULT_GAMMA
    alpha: float = DEFAULT_ALPHA

    @classmethod
    def from_leaderboard(cls, params: LeaderboardParams, **extra: object) -> EvaluationParams:
        """The evaluation of the leaderboard's parameters (judge, tau, k, qrels source...)."""
        shared = {f.name: getattr(params, f.name) for f in fields(LeaderboardParams)}
        return cls(**shared, **extra)

    def leaderboard(self) -> LeaderboardParams:
        """The parameters the leaderboard's columns read."""
        return LeaderboardParams(
            **{f.name: getattr(self, f.name) for f in fields(LeaderboardParams)}
        )

    def __post_init__(self) -> None:
        if self.k != K_ORACLE and not (isinstance(self.k, int) and self.k >= 1):
            raise EvaluationInputError(f"k must be an integer >= 1 or {K_ORACLE!r}, got {self.k!r}")
        if not 0 < self.tau <= 5:
            raise EvaluationInputError(f"tau must lie in (0, 5], got {self.tau}")
        if self.min_relevance < 1:
            raise EvaluationInputError(f"min_relevance must be >= 1, got {self.min_relevance}")


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


def _token_sums(ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Sum of token counts per row of a (T, K) id array (-1 = none); NaN if any is unknown.
    ``counts`` holds the count of each id (any value where the id is -1)."""
    return np.where(ids < 0, 0.0, counts).sum(axis=1)


def _reports(
    data: CollectionData, answerable: AnswerableSet, params: EvaluationParams
) -> list[ReportResult]:
    out = []
    for reports in report_ratings(data):
        # Report-coverage labels are binary (answerable or not): 1 answers. A judge that
        # rated reports 0-5 uses tau as for passages.
        judged = reports.ratings[~np.isnan(reports.ratings)]
        threshold = 1.0 if judged.size == 0 or judged.max() <= 1 else float(params.tau)
        result = report_coverage(
            reports.ratings, take(answerable, reports.topic), threshold, params.missing_as_zero
        )
        per_topic = np.full(data.n_topics, np.nan)
        has_report = np.zeros(data.n_topics, bool)
        has_report[reports.topic] = True
        for t in np.unique(reports.topic):
            values = result.value[reports.topic == t]
            # Several reports of one system for a topic: their mean, if all are defined.
            per_topic[t] = values.mean()
        out.append(
            ReportResult(
                reports.system,
                reports.judge,
                per_topic,
                has_report,
                int(result.missing.sum()),
                threshold,
            )
        )
    return out


def evaluate(collection: Collection, params: EvaluationParams | None = None) -> Evaluation:
    """Evaluate every run (or ``params.run``) of the collection."""
    params = params or EvaluationParams()
    allowed = {None, WHITESPACE, configured_tokenizer()}
    if params.tokenizer not in allowed:
        raise EvaluationInputError(
            f"tokenizer {params.tokenizer!r} is not available; use {WHITESPACE!r} or the "
            f"configured TOKENIZER_MODEL ({configured_tokenizer()!r})"
        )
    judge = resolve_judge(collection, params.judge)
    source = resolve_qrels_source(collection, params.qrels_source)
    runs = resolve_runs(collection, params.run)
    depth = params.k if isinstance(params.k, int) else None
    data = load_collection(collection, judge, source, runs, depth)
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

    results = []
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
        reasons = [REASONS[Status(int(s))] for s in coverage.status]
        results.append(
            RunResult(run.name, values, coverage.missing, reasons, run.topics_ranked(data.n_topics))
        )
    return Evaluation(
        collection=collection,
        params=params,
        judge=judge,
        qrels_source=source,
        topic_ids=data.topic_ids,
        topic_names=data.topic_names,
        computed_oracle=oracle.computed,
        runs=results,
        reports=_reports(data, answerable, params),
        rating_counts=data.rating_counts(),
    )


__all__ = [
    "K_ORACLE",
    "METRICS",
    "RECORD_KEYS",
    "Evaluation",
    "EvaluationParams",
    "RunResult",
    "evaluate",
]
