"""The "Judge vs people" page of a collection and its JSON / HTML downloads (researchers only)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views import View

from annotation.queue.selection import SelectionError
from crux_app.access import collection_or_404
from crux_app.inputs import EvaluationInputError
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from evaluation.judge_report.export import to_json
from evaluation.judge_report.forms import (
    JudgeReportForm,
    LabelCampaignForm,
    default_judges,
    judge_choices,
    judge_names,
    report_defaults,
)
from evaluation.judge_report.html_report import render_html
from evaluation.judge_report.label_campaign import create_label_campaign
from evaluation.judge_report.presentation import context
from evaluation.judge_report.report import build_report

TEMPLATE = "evaluation/judge_report/judge_report.html"
CAMPAIGN_TEMPLATE = "evaluation/judge_report/label_campaign_error.html"
NEEDS_TWO_JUDGES = (
    "This page compares two judges: the collection needs passage ratings (or qrels) from at "
    "least two judges, or two judges' labels under another of its metrics."
)
EXPORTS = {
    "json": (to_json, "application/json", "json"),
    "html": (render_html, "text/html; charset=utf-8", "html"),
}


def _form(request: HttpRequest, collection: Collection) -> JudgeReportForm:
    # Always bound, defaults filled in: a bare URL shows the default judges' report.
    data = request.GET.copy()
    for name, value in report_defaults(collection, data).items():
        data.setdefault(name, value)
    return JudgeReportForm(data, judges=judge_choices(collection))


class JudgeReportView(ResearcherRequiredMixin, View):
    """GET shows the page; ``format=json|html`` downloads the same report."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk)
        form = _form(request, collection)
        page: dict[str, object] = {"collection": collection, "form": form}
        if not request.GET and default_judges(collection) is None:
            page["error"] = NEEDS_TWO_JUDGES
            return render(request, TEMPLATE, page)
        if not form.is_valid():
            return render(request, TEMPLATE, page, status=400)
        try:
            report = build_report(collection, form.params())
        except EvaluationInputError as error:
            page["error"] = str(error)
            return render(request, TEMPLATE, page, status=400)
        fmt = form.cleaned_data.get("format")
        if fmt in EXPORTS:
            render_fn, content_type, extension = EXPORTS[fmt]
            response = HttpResponse(render_fn(report), content_type=content_type)
            # Quotes, CR/LF and non-ASCII in a (possibly older) name are escaped or encoded.
            name = f"judge-report-{collection.name}.{extension}"
            response["Content-Disposition"] = content_disposition_header(True, name)
            return response
        query = request.GET.copy()
        query.pop("format", None)
        page |= context(report) | {"export_query": query.urlencode()}
        page["label_form"] = _label_form(collection, form)
        return render(request, TEMPLATE, page)


def _label_form(collection: Collection, report_form: JudgeReportForm) -> LabelCampaignForm:
    """The campaign form, unbound, with the report's judges and cutoff filled in."""
    data = report_form.cleaned_data
    initial = {
        "judge_a": data["judge_a"],
        "judge_b": data["judge_b"],
        "k": data["k"],
        "name": f"{collection.name}: next labels for {data['judge_a']} vs {data['judge_b']}"[:200],
    }
    return LabelCampaignForm(None, judges=judge_names(collection), initial=initial)


class LabelCampaignView(ResearcherRequiredMixin, View):
    """POST: create a campaign of the topics/items to label next; then its page."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk, write=True)  # makes a campaign
        form = LabelCampaignForm(request.POST, judges=judge_names(collection))
        page: dict[str, object] = {"collection": collection, "form": form}
        if not form.is_valid():
            return render(request, CAMPAIGN_TEMPLATE, page, status=400)
        try:
            campaign = create_label_campaign(
                collection,
                form.plan(),
                name=form.cleaned_data["name"],
                overlap=form.cleaned_data["overlap"],
                user=request.user,
            )
        except (EvaluationInputError, SelectionError) as error:
            page["error"] = str(error)
            return render(request, CAMPAIGN_TEMPLATE, page, status=400)
        return redirect("campaign-detail", pk=campaign.pk)
