"""The collection leaderboard: the evaluate records as a sortable table, and the Kendall tau
between the system rankings of every two metrics (with its plotly heatmap figure).

The table rows are exactly ``Evaluation.record`` (what ``manage.py evaluate`` prints), so the
page and the command cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from crux_app.models import Collection
from evaluation.crux.evaluate import METRICS, Evaluation, EvaluationParams, evaluate
from evaluation.crux.output import run_records
from evaluation.leaderboard.columns import column_keys, column_values, run_columns
from evaluation.shared.metric_agreement import AgreementMatrix, kendall_matrix

REPORT_COVERAGE = "report_coverage"


def sort_keys() -> tuple[str, ...]:
    """Every sortable column: run, the CRUX metrics, registered columns, missing judgments."""
    return ("run", *METRICS, *column_keys(), "missing_judgments")


def metric_labels(k: int | str) -> dict[str, str]:
    return {
        **{c.key: c.label_for(k) for c in run_columns()},
        "coverage": f"Coverage@{k}",
        "alpha_ndcg": f"α-nDCG@{k}",
        "density": "Density",
        "density_norm": "Density (norm.)",
        "ndcg": f"nDCG@{k}",
        "map": "MAP",
        "recall": f"Recall@{k}",
        "rprec": "R-Prec",
        REPORT_COVERAGE: "Report coverage",
    }


@dataclass(frozen=True)
class Leaderboard:
    evaluation: Evaluation
    rows: list[dict[str, Any]]  # Evaluation records, sorted
    sort: str
    descending: bool
    agreement: AgreementMatrix
    labels: dict[str, str]
    columns: tuple[str, ...] = METRICS  # value columns in display order

    def table(self) -> list[tuple[dict[str, Any], list[Any]]]:
        """(record, values in ``columns`` order) per row."""
        return [(r, [r.get(c) for c in self.columns]) for r in self.rows]

    @property
    def total_missing(self) -> int:
        return sum(r["missing_judgments"] for r in self.rows)

    @property
    def topics(self) -> list[tuple[int, str]]:
        ev = self.evaluation
        return list(zip(ev.topic_ids.tolist(), ev.topic_names, strict=True))

    @property
    def any_tau(self) -> bool:
        """Whether any pair of metrics has a defined tau (one run: none has)."""
        return any(t.tau is not None for t in self.agreement.taus.values())

    def tau_rows(self) -> list[tuple[str, list[Any]]]:
        """(metric label, TauResult per metric) rows of the agreement matrix."""
        names = self.agreement.names
        return [(self.labels[a], [self.agreement.taus[(a, b)] for b in names]) for a in names]


def report_coverage_by_run(evaluation: Evaluation) -> dict[str, float | None]:
    """Report coverage of the system named like each run (mean over report judges)."""
    runs = {run.name for run in evaluation.runs}
    values: dict[str, list[float]] = {}
    for report in evaluation.reports:
        if report.system in runs and report.mean is not None:
            values.setdefault(report.system, []).append(report.mean)
    return {name: float(np.mean(v)) for name, v in values.items()}


def agreement_matrix(
    evaluation: Evaluation, extra: dict[str, dict[str, float | None]] | None = None
) -> AgreementMatrix:
    """Kendall tau between every two metrics' run rankings; report coverage joins them when
    at least two runs have reports under their name (CRUX Table 1), a registered column when
    at least two runs have a value."""
    table: dict[str, dict[str, float | None]] = evaluation.metric_table()
    for key, values in (extra or {}).items():
        if sum(v is not None for v in values.values()) >= 2:
            table[key] = values
    reports = report_coverage_by_run(evaluation)
    if len(reports) >= 2:
        table[REPORT_COVERAGE] = reports
    return kendall_matrix(table, order=list(table))


def sorted_records(
    records: list[dict[str, Any]], sort: str, descending: bool
) -> list[dict[str, Any]]:
    """Records by one key; undefined values always last."""
    defined = [r for r in records if r[sort] is not None]
    undefined = [r for r in records if r[sort] is None]
    defined.sort(key=lambda r: (r[sort], r["run"]), reverse=descending)
    return defined + undefined


def build_leaderboard(
    collection: Collection,
    params: EvaluationParams,
    sort: str = "coverage",
    descending: bool = True,
) -> Leaderboard:
    evaluation = evaluate(collection, params)
    extra = column_values(collection, params, [run.name for run in evaluation.runs])
    return Leaderboard(
        evaluation=evaluation,
        rows=sorted_records(run_records(evaluation, extra=extra), sort, descending),
        sort=sort,
        descending=descending,
        agreement=agreement_matrix(evaluation, extra),
        labels=metric_labels(params.k),
        columns=(*METRICS, *extra),
    )


def tau_heatmap(board: Leaderboard) -> dict[str, Any]:
    """The plotly figure (a plain dict) of the Kendall tau matrix; undefined cells are blank."""
    names = board.agreement.names
    labels = [board.labels[n] for n in names]
    z, text, hover = [], [], []
    for a in names:
        z_row, text_row, hover_row = [], [], []
        for b in names:
            result = board.agreement.taus[(a, b)]
            z_row.append(result.tau)
            text_row.append("–" if result.tau is None else f"{result.tau:.2f}")
            detail = (
                f"τ = {result.tau:.3f} (n = {result.n} runs)"
                if result.tau is not None
                else f"undefined: {result.reason}"
            )
            hover_row.append(f"{board.labels[a]} vs {board.labels[b]}<br>{detail}")
        z.append(z_row)
        text.append(text_row)
        hover.append(hover_row)
    return {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "x": labels,
                "y": labels,
                "zmin": -1,
                "zmax": 1,
                "colorscale": "RdBu",
                "text": text,
                "texttemplate": "%{text}",
                "customdata": hover,
                "hovertemplate": "%{customdata}<extra></extra>",
                "colorbar": {"title": {"text": "Kendall τ"}},
            }
        ],
        "layout": {
            "margin": {"l": 130, "r": 20, "t": 20, "b": 110},
            "height": 120 + 42 * len(names),
            "yaxis": {"autorange": "reversed"},
            "xaxis": {"tickangle": -40},
        },
    }
