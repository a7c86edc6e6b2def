"""The judge report of a collection: run-ranking agreement between judges A and B and
prediction-powered estimates of every run's score, from per-(run, topic) scores.

Which judge is the reference: the human one when exactly one of A and B is a person (a judge of
kind ``human``), else B. tau-AP takes the reference's ranking as the truth; PPI takes the
reference's scores as the gold labels and the other judge's as the predictions.

Ranking agreement needs every run scored on the same topics: it uses the topics where every run
has a score under both judges (runs with no score at all under either judge are left out
first). PPI uses each run's own topics: the judge-only estimate all topics the predicting judge
scored, the human-only estimate the topics the reference scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.utils import timezone

from crux_app.inputs import EvaluationInputError, collection_judges
from crux_app.judge_ensembles import EnsembleStatus, ensemble_statuses
from crux_app.models import Collection
from evaluation.judge_report.campaign_notes import biased_campaigns
from evaluation.judge_report.method.ppi import (
    PPIResult,
    SamplingCheck,
    ppi_estimates,
    sampling_check,
)
from evaluation.judge_report.method.ranking_agreement import (
    DEFAULT_ALPHA,
    Bootstrap,
    RankingAgreement,
    ranking_agreement,
)
from evaluation.judge_report.metrics import NDCG, metric_named
from evaluation.judge_report.scores import (
    Axes,
    collection_axes,
    judge_kind,
    judge_kind_text,
    judge_scores,
    top_k,
)
from evaluation.judge_report.self_consistency import build_self_consistency
from evaluation.shared.degenerate import JudgeWarning, judges_rating_warnings


@dataclass(frozen=True)
class JudgeReportParams:
    judge_a: str
    judge_b: str
    metric: str = NDCG  # metrics.metrics()'s keys
    k: int = 10
    bootstrap: Bootstrap = field(default_factory=Bootstrap)
    alpha: float = DEFAULT_ALPHA  # significance level of the paired tests

    def __post_init__(self) -> None:
        if self.judge_a == self.judge_b:
            raise EvaluationInputError(f"name two different judges, got {self.judge_a!r} twice")
        metric_named(self.metric)  # an unknown key is an EvaluationInputError listing the known
        if not isinstance(self.k, int) or isinstance(self.k, bool) or self.k < 1:
            raise EvaluationInputError(f"k must be an integer >= 1, got {self.k!r}")
        if not 0 < self.alpha < 1:
            raise EvaluationInputError(f"alpha must lie in (0, 1), got {self.alpha}")

    @property
    def metric_label(self) -> str:
        return metric_named(self.metric).label_for(self.k)

    @property
    def metric_basis(self) -> str:
        return metric_named(self.metric).basis


@dataclass(frozen=True)
class JudgeSide:
    name: str
    kind: str  # llm, human, ensemble, or qrels (a qrels source with no Judge row)
    ensemble: EnsembleStatus | None = None  # members, combiner, staleness of an ensemble
    kind_label: str = ""  # the kind in words (e.g. "embedding baseline" for an llm row)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "name": self.name,
            "kind": self.kind,
            "kind_label": self.kind_label or self.kind,
        }
        if self.ensemble is not None:
            out["ensemble"] = self.ensemble.as_dict()
        return out


@dataclass(frozen=True)
class RunPPI:
    run: str
    result: PPIResult


@dataclass
class JudgeReport:
    collection: Collection
    params: JudgeReportParams
    judge_a: JudgeSide
    judge_b: JudgeSide
    reference: str  # "a" or "b": the gold side of PPI, the truth of tau-AP
    axes: Axes
    scores_a: np.ndarray  # (R, T), NaN where undefined
    scores_b: np.ndarray
    generated_at: datetime
    ranking: RankingAgreement | None = None  # None: fewer than 2 runs or no common topic
    ranking_runs: list[int] = field(default_factory=list)  # row indices it uses
    ranking_topics: list[int] = field(default_factory=list)  # column indices it uses
    ppi: list[RunPPI] = field(default_factory=list)
    sampling: SamplingCheck | None = None
    notes: list[str] = field(default_factory=list)
    # Campaigns made from this page that chose what to label non-randomly (PPI is biased).
    selection_notes: list[str] = field(default_factory=list)
    # The LLM judge's sampled repeats against people (None: it was never re-run).
    self_consistency: dict | None = None
    # A judge whose passage ratings in the collection are nearly constant or unparsable.
    warnings: list[JudgeWarning] = field(default_factory=list)

    @property
    def reference_side(self) -> JudgeSide:
        return self.judge_a if self.reference == "a" else self.judge_b

    @property
    def predictor_side(self) -> JudgeSide:
        return self.judge_b if self.reference == "a" else self.judge_a


# The kinds that can stand as the human side (PPI's gold labels, tau-AP's truth): people
# labelling blind, and the adjudicated reference a review campaign's decisions make.
REFERENCE_KINDS = frozenset({"human", "adjudicated"})
# People who saw a machine's suggestion (post-editing campaigns): never the human side.
POST_EDITED = "post_edited"


def pick_reference(a: JudgeSide, b: JudgeSide) -> str:
    if a.kind in REFERENCE_KINDS and b.kind not in REFERENCE_KINDS:
        return "a"
    return "b"


def common_cells(a: np.ndarray, b: np.ndarray) -> tuple[list[int], list[int]]:
    """Runs with any score under both judges, then the topics every such run has both on."""
    both = np.isfinite(a) & np.isfinite(b)
    runs = np.flatnonzero(both.any(axis=1))
    topics = np.flatnonzero(both[runs].all(axis=0)) if runs.size else np.zeros(0, np.int64)
    return runs.tolist(), topics.tolist()


def _ranking(report: JudgeReport) -> None:
    a, b = report.scores_a, report.scores_b
    runs, topics = common_cells(a, b)
    n_runs, n_topics = len(report.axes.runs), len(report.axes.topics)
    if len(runs) < n_runs:
        report.notes.append(
            f"{n_runs - len(runs)} of {n_runs} runs have no topic scored by both judges and are "
            "left out of the ranking agreement"
        )
    if len(topics) < n_topics:
        report.notes.append(
            f"the ranking agreement uses the {len(topics)} of {n_topics} topics on which every "
            "run has a score under both judges"
        )
    if len(runs) < 2 or not topics:
        report.notes.append("no ranking agreement: it needs 2 runs scored on a common topic")
        return
    report.ranking_runs, report.ranking_topics = runs, topics
    names = [report.axes.run_names[r] for r in runs]
    cells = np.ix_(runs, topics)
    report.ranking = ranking_agreement(
        names,
        a[cells],
        b[cells],
        report.params.bootstrap,
        report.params.alpha,
        truth=report.reference,
    )


def _ppi(report: JudgeReport) -> None:
    level = report.params.bootstrap.level
    reference = report.scores_a if report.reference == "a" else report.scores_b
    predictor = report.scores_b if report.reference == "a" else report.scores_a
    report.ppi = [
        RunPPI(name, ppi_estimates(predictor[r], reference[r], level))
        for r, name in enumerate(report.axes.run_names)
    ]
    labelled = np.isfinite(reference).any(axis=0)
    judged = np.isfinite(predictor)
    totals = np.where(judged, predictor, 0.0).sum(axis=0)
    counts = judged.sum(axis=0)
    # The predicting judge's mean over runs per topic (NaN where it scored no run there).
    topic_scores = np.divide(totals, counts, out=np.full(totals.shape, np.nan), where=counts > 0)
    report.sampling = sampling_check(topic_scores, labelled)
    report.selection_notes = biased_campaigns(report.collection)
    if report.reference_side.kind not in REFERENCE_KINDS:
        report.notes.append(
            f"not exactly one of the judges is a person: {report.reference_side.name} (B) is "
            "taken as the reference (PPI's gold labels, tau-AP's truth)"
        )


def build_report(collection: Collection, params: JudgeReportParams) -> JudgeReport:
    axes = collection_axes(collection)
    names = (params.judge_a, params.judge_b)
    ensembles = ensemble_statuses(collection, names)
    sides = [
        JudgeSide(name, judge_kind(name), ensembles.get(name), judge_kind_text(name))
        for name in names
    ]
    rankings = top_k(axes, params.k) if params.metric == NDCG else None
    scores = [
        judge_scores(collection, s.name, params.metric, params.k, axes, rankings) for s in sides
    ]
    report = JudgeReport(
        collection=collection,
        params=params,
        judge_a=sides[0],
        judge_b=sides[1],
        reference=pick_reference(*sides),
        axes=axes,
        scores_a=scores[0],
        scores_b=scores[1],
        generated_at=timezone.now(),
    )
    for side in sides:
        if side.ensemble is not None and side.ensemble.stale:
            report.notes.append(side.ensemble.warning)
        if side.kind == POST_EDITED:
            report.notes.append(
                f"{side.name} holds post-edited labels: its annotators saw an LLM judge's "
                "suggestion before labelling, so it is no blind human reference and agrees with "
                "that judge more than blind labels would"
            )
    scope = f"in {collection.name}"
    report.warnings = judges_rating_warnings(collection_judges(collection), scope, names)
    _ranking(report)
    _ppi(report)
    report.self_consistency = _self_consistency(collection, params)
    return report


def _self_consistency(collection: Collection, params: JudgeReportParams) -> dict | None:
    """The repeats of judge B, the judge under test, else of judge A."""
    boot = params.bootstrap
    for name in (params.judge_b, params.judge_a):
        found = build_self_consistency(collection, name, boot.resamples, boot.seed)
        if found is not None:
            return found
    return None


__all__ = ["JudgeReport", "JudgeReportParams", "build_report"]
