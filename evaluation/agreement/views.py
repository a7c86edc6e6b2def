"""The agreement page of a collection (or of one campaign's judgments) and its exports."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.views import View

from crux_app.access import collection_or_404
from crux_app.inputs import EvaluationInputError
from crux_app.list_paging import list_form, refused
from crux_app.roles import ResearcherRequiredMixin
from evaluation.agreement.disagreement_list import (
    PREFIX,
    DisagreementFilterForm,
    disagreement_list,
    total_disagreements,
    with_total,
)
from evaluation.agreement.disagreements import Disagreement
from evaluation.agreement.forms import page_form
from evaluation.agreement.html_report import render_html
from evaluation.agreement.presentation import context as report_context
from evaluation.agreement.report_cache import agreement_report
from evaluation.agreement.report_export import to_csv, to_json
from evaluation.agreement.review_link import review_query
from evaluation.agreement.sources import COMPARISON_SOURCES

EXPORTS = {
    "json": (to_json, "application/json", "json"),
    "csv": (to_csv, "text/csv; charset=utf-8", "csv"),
    "html": (render_html, "text/html; charset=utf-8", "html"),
}


def _reverse(name: str, args: list[int]) -> str | None:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def drill_down(collection_pk: int, d: Disagreement, tau: float) -> dict[str, str | None]:
    """The page its source declares for the topic (CRUX: the coverage matrix) showing the
    disagreeing judge, and the cell panel of a passage item."""
    params: dict[str, object] = {"judge": d.judge_id}
    if float(tau).is_integer():  # the matrix page offers integer tau only
        params["tau"] = int(tau)
    source = COMPARISON_SOURCES.get(d.task)  # its declaration names the pages to drill to
    topic_page = source.topic_url_name if source is not None else None
    cell_page = source.cell_url_name if source is not None else None
    matrix = _reverse(topic_page, [collection_pk, d.topic_id]) if topic_page else None
    cell = _reverse(cell_page, [collection_pk, d.topic_id]) if cell_page else None
    cell_params = {"sq": d.subquestion_id, "passage": d.item_id, **params}
    return {
        "matrix": f"{matrix}?{urlencode(params)}" if matrix else None,
        "cell": f"{cell}?{urlencode(cell_params)}" if cell and d.item_kind == "passage" else None,
    }


def export_name(collection: str, campaign: str | None, tau: float, extension: str) -> str:
    """``agreement-<collection>[-campaign-<slug>]-tau<tau>.<ext>``: two downloads with other
    settings never overwrite each other. Only letters, digits, ``.``, ``_`` and ``-`` are
    kept (a header-safe, portable file name)."""
    parts = ["agreement", collection]
    if campaign:
        parts += ["campaign", campaign]
    parts.append(f"tau{tau:g}")
    stem = "-".join(re.sub(r"[^A-Za-z0-9._]+", "-", part).strip("-.") or "x" for part in parts)
    return f"{stem}.{extension}"


class AgreementView(ResearcherRequiredMixin, View):
    """GET shows the page; ``format=json|csv|html`` downloads the same report."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk)
        form = page_form(request.GET, collection)
        page: dict[str, object] = {"collection": collection, "form": form}
        if not form.is_valid():
            return render(request, "evaluation/agreement/agreement.html", page, status=400)
        options = form.options()
        paging = list_form(request.GET, PREFIX)
        if bad := refused(paging):
            return bad
        try:
            report = agreement_report(collection, options)
        except EvaluationInputError as error:
            page["error"] = str(error)
            return render(request, "evaluation/agreement/agreement.html", page, status=400)
        fmt = form.cleaned_data.get("format") or "page"
        if fmt in EXPORTS:
            render_fn, content_type, extension = EXPORTS[fmt]
            response = HttpResponse(render_fn(report), content_type=content_type)
            name = export_name(collection.name, options.campaign, options.tau, extension)
            response["Content-Disposition"] = f'attachment; filename="{name}"'
            return response
        # A filter the form refuses (a topic id not in the collection) is shown on the page,
        # with status 400 and no rows; the report above it stands.
        shown = DisagreementFilterForm(request.GET, collection=collection, report=report)
        listed = disagreement_list(report, shown, paging) if shown.is_valid() else None
        query = request.GET.copy()
        query.pop("format", None)
        for name in list(query):  # the exports list the worst disagreements, not this page
            if name.startswith(f"{PREFIX}-"):
                query.pop(name)
        page |= report_context(report)
        page |= {
            # Plots load when scrolled to (``AgreementPlotView``), with the report's options.
            "lazy_plots": True,
            "tau": options.tau,
            "campaign": options.campaign,
            "export_query": query.urlencode(),
            # The page's other choices, kept as hidden fields of the filter form (a template
            # cannot call request.GET.lists: a "lists" parameter would shadow it).
            "kept_params": [(name, value) for name, values in query.lists() for value in values],
            "disagreement_form": shown,
            "review_query": review_query(
                collection,
                form.cleaned_data.get("judge") or [],
                report.raters,
                shown.cleaned_data if shown.is_valid() else None,
            ),
            "disagreement_listing": listed,
            "disagreement_rows": [
                (d, drill_down(collection.pk, d, options.tau))
                for d in (listed.rows if listed else [])
            ],
        }
        page["toc"] = with_total(page["toc"], total_disagreements(report))
        status = 200 if listed else 400
        return render(request, "evaluation/agreement/agreement.html", page, status=status)
