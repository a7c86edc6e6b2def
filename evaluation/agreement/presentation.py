"""What the agreement page and the HTML report show: readable rows and plotly figures, built
once here so that both print the same numbers."""

from __future__ import annotations

from dataclasses import dataclass

from evaluation.agreement.machine_agreement import POOLED, ConfusionMatrix
from evaluation.agreement.records import CoveragePoint, Record, statistic_label
from evaluation.agreement.report import AgreementReport
from evaluation.agreement.report_export import meta


def number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "–"
    if float(value).is_integer() and abs(value) >= 10:
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


@dataclass(frozen=True)
class Row:
    """One figure as shown: ``value_text`` holds the value and its interval, or the reason it
    is undefined; ``value`` keeps full precision for the page's data attributes."""

    section: str
    task: str
    statistic: str
    label: str
    judges: str
    reference: str
    value: float | None
    value_text: str
    interval_text: str
    n: int
    undefined: str | None
    note: str
    extra: dict


def row(section: str, record: Record) -> Row:
    s = record.stat
    if s.value is None:
        value_text, interval = "undefined", ""
    else:
        value_text = number(s.value)
        interval = "" if s.ci_low is None else f"[{number(s.ci_low)}, {number(s.ci_high)}]"
    extra = dict(record.extra)
    note = s.note or ""
    if s.n_pairs is not None:
        note = "; ".join(x for x in (note, f"{s.n_pairs} label pairs") if x)
    return Row(
        section=section,
        task=record.task,
        statistic=s.statistic,
        label=statistic_label(s.statistic),
        judges=", ".join(record.judges),
        reference=str(extra.get("reference") or ""),
        value=s.value,
        value_text=value_text,
        interval_text=interval,
        n=s.n,
        undefined=s.undefined,
        note=note,
        extra=extra,
    )


def rows(report: AgreementReport, section: str) -> list[Row]:
    return [row(section, r) for r in getattr(report, section)]


# The figures of CRUX's own human-vs-LLM table, per task, for the summary at the top.
HEADLINE = {
    "passage_rating": (
        "cohen_kappa_at_tau",
        "cohen_kappa_quadratic",
        "spearman",
        "precision_answerable",
        "recall_answerable",
        "precision_unanswerable",
        "recall_unanswerable",
    ),
    "report_coverage": (
        "cohen_kappa",
        "percent_agreement",
        "precision_answerable",
        "recall_answerable",
        "precision_unanswerable",
        "recall_unanswerable",
    ),
}


def headline(human_vs_llm: list[Row]) -> list[dict]:
    """One table per task: a line per (judge, human reference), a column per key figure."""
    out = []
    for task, statistics in HEADLINE.items():
        lines: dict[tuple[str, str], dict[str, Row]] = {}
        for r in human_vs_llm:
            if r.task == task and r.statistic in statistics:
                lines.setdefault((str(r.extra.get("judge")), r.reference), {})[r.statistic] = r
        if lines:
            out.append(
                {
                    "task": task,
                    "columns": [statistic_label(s) for s in statistics],
                    "lines": [
                        {
                            "judge": judge,
                            "reference": reference,
                            "n": max(c.n for c in cells.values()),
                            "cells": [cells.get(s) for s in statistics],
                        }
                        for (judge, reference), cells in lines.items()
                    ],
                }
            )
    return out


def confusion_figure(cm: ConfusionMatrix) -> dict:
    """A plotly heatmap spec (plain data: building go.Figure objects costs ~50 ms each)."""
    trace = {
        "type": "heatmap",
        "z": cm.matrix,
        "x": cm.labels,
        "y": cm.labels,
        "text": cm.matrix,
        "texttemplate": "%{text}",
        "colorscale": [[0, "#f4f8fd"], [1, "#1f4e99"]],
        "showscale": False,
        "hovertemplate": "human %{y}, judge %{x}: %{z}<extra></extra>",
    }
    layout = {
        "title": {"text": f"{cm.task}: {cm.judge} vs {cm.reference}", "font": {"size": 13}},
        "xaxis": {
            "title": {"text": f"{cm.judge} ({cm.scale})"},
            "type": "category",
            "automargin": True,
        },
        "yaxis": {
            "title": {"text": cm.reference},
            "type": "category",
            "autorange": "reversed",
            "automargin": True,
        },
        "width": 420,
        "height": 380,
        "margin": {"l": 70, "r": 10, "t": 50, "b": 60},
    }
    return {"data": [trace], "layout": layout}


def coverage_scatter(points: list[CoveragePoint], judge: str) -> dict:
    """Human vs LLM coverage of each report, one trace per system, with the diagonal."""
    mine = [p for p in points if p.judge == judge and p.human is not None]
    data = []
    for system in sorted({p.system for p in mine}):
        shown = [p for p in mine if p.system == system and p.machine is not None]
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": system,
                "x": [p.human for p in shown],
                "y": [p.machine for p in shown],
                "text": [f"{p.output} ({p.topic}), |A| = {p.answerable}" for p in shown],
                "hovertemplate": "%{text}<br>humans %{x:.3f}, judge %{y:.3f}<extra></extra>",
            }
        )
    data.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": "equal",
            "x": [0, 1],
            "y": [0, 1],
            "line": {"dash": "dot", "color": "#999"},
        }
    )
    layout: dict = {
        "title": {"text": f"Report coverage: humans (mean) vs {judge}", "font": {"size": 13}},
        "xaxis": {"title": {"text": "coverage from human labels"}, "range": [-0.02, 1.02]},
        "yaxis": {"title": {"text": f"coverage from {judge}"}, "range": [-0.02, 1.02]},
        "width": 520,
        "height": 440,
        "margin": {"l": 60, "r": 10, "t": 50, "b": 50},
    }
    if not any(p.machine is not None for p in mine):
        layout["annotations"] = [
            {
                "text": "no report with both coverages defined",
                "showarrow": False,
                "x": 0.5,
                "y": 0.5,
            }
        ]
    return {"data": data, "layout": layout}


def figures(report: AgreementReport) -> dict[str, list[dict]]:
    """Plot specs by kind: ``confusion`` and ``coverage`` (id, title, spec)."""

    def entry(kind: str, i: int, title: str, spec: dict) -> dict:
        return {"id": f"{kind}-{i}", "data_id": f"{kind}-{i}-data", "title": title, "spec": spec}

    # Plots for the main reference of each judge (all humans pooled, or the only annotator);
    # every matrix is also a table.
    pooled = {(c.task, c.judge) for c in report.confusion if c.reference == POOLED}
    main = [c for c in report.confusion if c.reference == POOLED or (c.task, c.judge) not in pooled]
    confusion = [
        entry("confusion", i, f"{c.task}: {c.judge} vs {c.reference}", confusion_figure(c))
        for i, c in enumerate(main)
    ]
    judges = list(dict.fromkeys(p.judge for p in report.coverage_points))
    coverage = [
        entry("coverage", i, judge, coverage_scatter(report.coverage_points, judge))
        for i, judge in enumerate(judges)
    ]
    return {"confusion": confusion, "coverage": coverage}


def context(report: AgreementReport) -> dict[str, object]:
    """Everything the shared report body template reads."""
    return {
        "report": report,
        "meta": meta(report),
        "level": f"{report.options.bootstrap.level:.0%}",
        "human_vs_llm": (human_vs_llm := rows(report, "human_vs_llm")),
        "headline": headline(human_vs_llm),
        "judge_comparison": rows(report, "judge_comparison"),
        "report_coverage": rows(report, "report_coverage"),
        "inter_annotator": rows(report, "inter_annotator"),
        "per_annotator": rows(report, "per_annotator"),
        "figures": figures(report),
        "unavailable_sources": [s for s in report.sources if not s.available],
    }
