"""CRUX's columns on the leaderboard: coverage, alpha-nDCG, density and the ranking metrics of
``evaluate`` (the numbers ``manage.py evaluate`` prints), report coverage in the Kendall matrix,
and the panels that say which judge and oracle the numbers rest on."""

from __future__ import annotations

import numpy as np

from crux_app.models import Collection
from evaluation.crux.evaluate import METRICS, Evaluation, EvaluationParams, evaluate_cached
from evaluation.crux.judge_warnings import first_matrix_url, judge_warnings
from evaluation.crux.oracle import ORACLE_POLICY
from evaluation.leaderboard.columns import Column, ColumnGroup, GroupValues, LeaderboardParams

REPORT_COVERAGE = "report_coverage"
LABELS = {
    "coverage": "Coverage@{k}",
    "alpha_ndcg": "α-nDCG@{k}",
    "density": "Density",
    "density_norm": "Density (norm.)",
    "ndcg": "nDCG@{k}",
    "map": "MAP",
    "recall": "Recall@{k}",
    "rprec": "R-Prec",
}
# Offered to the judge report: its per-topic values are computed under each judge's ratings.
JUDGE_REPORT = ("coverage", "alpha_ndcg")
RATINGS_BASIS = "under each judge's own 0-5 ratings (answerable sub-questions covered)"


def topics_text(summary: dict[str, int]) -> str:
    """The per-run topic counts of an evaluate record, as the table cell reads them."""
    text = str(summary["evaluated"])
    if summary["undefined_coverage"]:
        text += f", coverage undefined on {summary['undefined_coverage']}"
        if summary["unjudged_oracle"]:
            text += f" ({summary['unjudged_oracle']} for unjudged required passages)"
    if summary["not_ranked"]:
        text += f", {summary['not_ranked']} not ranked"
    return text


COLUMNS = (
    *(
        Column(
            m,
            LABELS[m],
            ranked="always",
            judge_report=m in JUDGE_REPORT,
            judge_basis=RATINGS_BASIS if m in JUDGE_REPORT else "",
        )
        for m in METRICS
    ),
    Column(
        "missing_judgments",
        "Missing judgments",
        "unjudged (topic, passage in the top-k, answerable sub-question) triples",
        display="count",
        ranked="never",
    ),
    Column("topics", "Topics", display="text", ranked="never", format=topics_text),
    # CRUX Table 1: report coverage ranks the systems named like runs, when two have reports.
    Column(REPORT_COVERAGE, "Report coverage", shown=False),
)


def report_coverage_by_run(evaluation: Evaluation) -> dict[str, float | None]:
    """Report coverage of the system named like each run (mean over report judges)."""
    runs = {run.name for run in evaluation.runs}
    values: dict[str, list[float]] = {}
    for report in evaluation.reports:
        if report.system in runs and report.mean is not None:
            values.setdefault(report.system, []).append(report.mean)
    return {name: float(np.mean(v)) for name, v in values.items()}


def compute(collection: Collection, params: LeaderboardParams, run_names: list[str]) -> GroupValues:
    # Per-topic values of the topics no write touched come from the unit cache; the means,
    # the tau matrix and the warnings are taken per request.
    evaluation = evaluate_cached(collection, EvaluationParams.from_leaderboard(params))
    records = {r["run"]: r for r in evaluation.records()}
    values = {
        key: {name: records[name][key] for name in run_names if name in records}
        for key in (*METRICS, "missing_judgments", "topics")
    }
    values[REPORT_COVERAGE] = report_coverage_by_run(evaluation)
    total_missing = sum(r["missing_judgments"] for r in records.values())
    warnings = judge_warnings(
        collection,
        evaluation.judge,
        first_matrix_url(evaluation),
        rating_counts=evaluation.rating_counts,  # counted from the rows read, per topic
    )
    return GroupValues(
        values,
        {"evaluation": evaluation, "total_missing": total_missing, "oracle_policy": ORACLE_POLICY},
        warnings=warnings,
        judge=evaluation.judge.name if evaluation.judge else "",
    )


def per_topic(
    collection: Collection, params: LeaderboardParams, run_names: list[str]
) -> dict[str, dict[tuple[str, int], float | None]]:
    """Coverage, alpha-nDCG@k and Recall@k of each (run, topic), as ``evaluate`` computes them."""
    if not isinstance(params.k, int):
        return {}
    evaluation = evaluate_cached(collection, EvaluationParams.from_leaderboard(params))
    topic_ids = [int(t) for t in evaluation.topic_ids]
    out: dict[str, dict[tuple[str, int], float | None]] = {
        "coverage": {},
        "alpha_ndcg": {},
        "recall": {},
    }
    for run in evaluation.runs:
        for metric, table in out.items():
            for topic, value in zip(topic_ids, run.values[metric], strict=True):
                table[(run.name, topic)] = None if np.isnan(value) else float(value)
    return out


GROUP = ColumnGroup(
    key="crux",
    columns=COLUMNS,
    compute=compute,
    panel_above="evaluation/crux/_leaderboard_params.html",
    panel_below="evaluation/crux/_leaderboard_notes.html",
    per_topic=per_topic,
)
