"""What the agreement page and the HTML report show: readable rows and plotly figures, built
once here so that both print the same numbers."""

from __future__ import annotations

import textwrap
from html import escape

from evaluation.agreement.machine_agreement import POOLED, ConfusionMatrix
from evaluation.agreement.page_layout import Row, layout
from evaluation.agreement.report import AgreementReport
from evaluation.agreement.report_export import meta
from evaluation.agreement.report_rows import CoveragePoint, Record, statistic_label


def number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "–"
    if float(value).is_integer() and abs(value) >= 10:
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


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


# Characters per title line that fit the figure's width at 13 px (long judge names wrap).
CONFUSION_TITLE_CHARS = 46
COVERAGE_TITLE_CHARS = 58
AXIS_TITLE_CHARS = 48
LINE_PX = 18  # height of one title line


def wrapped(text: str, width: int) -> tuple[str, int]:
    """``text`` escaped for plotly (which reads its titles as HTML) and broken at spaces into
    lines of at most ``width`` characters (a longer word is cut), and the number of lines."""
    lines = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    return "<br>".join(escape(line, quote=False) for line in lines), len(lines)


def confusion_figure(cm: ConfusionMatrix) -> dict:
    """A plotly heatmap spec (plain data: building go.Figure objects costs ~50 ms each). The
    title and axis titles wrap inside the figure and the margins grow to hold them."""
    title, n_title = wrapped(f"{cm.task}: {cm.judge} vs {cm.reference}", CONFUSION_TITLE_CHARS)
    x_title, n_x = wrapped(f"{cm.judge} ({cm.scale})", AXIS_TITLE_CHARS)
    y_title, n_y = wrapped(cm.reference, AXIS_TITLE_CHARS)
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
        "title": {
            "text": title,
            "font": {"size": 13},
            "x": 0.5,
            "xanchor": "center",
            # From the figure's top edge down into the top margin, which holds every line.
            "yref": "container",
            "y": 1,
            "yanchor": "top",
            "pad": {"t": 14},
        },
        "xaxis": {"title": {"text": x_title}, "type": "category", "automargin": True},
        "yaxis": {
            "title": {"text": y_title},
            "type": "category",
            "autorange": "reversed",
            "automargin": True,
        },
        "width": 420,
        "height": 380 + LINE_PX * (n_title - 1),
        "margin": {
            "l": 50 + LINE_PX * n_y,
            "r": 20,
            "t": 30 + LINE_PX * n_title,
            "b": 50 + LINE_PX * n_x,
        },
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
    title, n_title = wrapped(f"Report coverage: humans (mean) vs {judge}", COVERAGE_TITLE_CHARS)
    y_title, n_y = wrapped(f"coverage from {judge}", AXIS_TITLE_CHARS)
    layout: dict = {
        "title": {"text": title, "font": {"size": 13}, "x": 0.5, "xanchor": "center"},
        "xaxis": {"title": {"text": "coverage from human labels"}, "range": [-0.02, 1.02]},
        "yaxis": {"title": {"text": y_title}, "range": [-0.02, 1.02], "automargin": True},
        "width": 520,
        "height": 440 + LINE_PX * (n_title - 1),
        "margin": {"l": 45 + LINE_PX * n_y, "r": 10, "t": 25 + LINE_PX * n_title, "b": 50},
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
    data: dict[str, object] = {
        "report": report,
        "meta": meta(report),
        "level": f"{report.options.bootstrap.level:.0%}",
        "human_vs_llm": (human_vs_llm := rows(report, "human_vs_llm")),
        "headline": headline(human_vs_llm),
        "post_edited_vs_llm": rows(report, "post_edited_vs_llm"),
        "judge_comparison": rows(report, "judge_comparison"),
        "report_coverage": rows(report, "report_coverage"),
        "inter_annotator": rows(report, "inter_annotator"),
        "per_annotator": rows(report, "per_annotator"),
        "figures": figures(report),
        "unavailable_sources": [s for s in report.sources if not s.available],
    }
    return data | layout(data)
