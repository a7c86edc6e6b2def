"""One plot of the agreement page, asked for when it is scrolled into view: the page's HTML
holds a slot per plot instead of every figure's data (a page of a dozen plots stays small and
draws only what is read)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View

from crux_app.access import collection_or_404
from crux_app.inputs import EvaluationInputError
from crux_app.roles import ResearcherRequiredMixin
from evaluation.agreement.forms import page_form
from evaluation.agreement.presentation import figures
from evaluation.agreement.report_cache import agreement_report

PLOT_TEMPLATE = "evaluation/agreement/_plot.html"


def _refused(text: str) -> HttpResponse:
    return HttpResponse(text, status=400, content_type="text/plain; charset=utf-8")


class AgreementPlotView(ResearcherRequiredMixin, View):
    """GET with the page's selectors: the figure ``plot`` (e.g. ``confusion-0``) of the report
    the page shows, read from the report cache the page filled."""

    def get(self, request: HttpRequest, pk: int, plot: str) -> HttpResponse:
        collection = collection_or_404(request, pk=pk)
        form = page_form(request.GET, collection)
        if not form.is_valid():
            return _refused(form.errors.as_text())
        try:
            report = agreement_report(collection, form.options())
        except EvaluationInputError as error:
            return _refused(str(error))
        for group in figures(report).values():
            for figure in group:
                if figure["id"] == plot:
                    return render(request, PLOT_TEMPLATE, {"f": figure})
        raise Http404("No such plot in this report.")
