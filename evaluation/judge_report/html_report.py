"""The judge report as one self-contained HTML file: plotly's JS inlined, no network, no link
into the app (as the agreement report is exported)."""

from __future__ import annotations

from django.template.loader import render_to_string
from plotly.offline import get_plotlyjs

from evaluation.judge_report.presentation import context
from evaluation.judge_report.report import JudgeReport

TEMPLATE = "evaluation/judge_report/export.html"


def render_html(report: JudgeReport) -> str:
    data = context(report)
    data["plotly_js"] = get_plotlyjs()
    return render_to_string(TEMPLATE, data)
