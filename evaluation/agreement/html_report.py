"""The agreement report as one self-contained HTML file: plotly's JS inlined, no network, no
link into the app, readable by someone who never opened it."""

from __future__ import annotations

from django.template.loader import render_to_string
from plotly.offline import get_plotlyjs

from evaluation.agreement.presentation import context
from evaluation.agreement.report import AgreementReport

TEMPLATE = "evaluation/agreement/export.html"


def render_html(report: AgreementReport) -> str:
    data = context(report)
    data["plotly_js"] = get_plotlyjs()
    data["disagreement_rows"] = [(d, None) for d in report.disagreements]
    return render_to_string(TEMPLATE, data)
