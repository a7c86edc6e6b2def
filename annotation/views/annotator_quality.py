"""The annotator quality page of a campaign (sortable) and its CSV (cells neutralised, with
Prolific ids for approving and bonusing)."""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View

from annotation.crowd.params import DEFAULT_METHOD, AggregationParams
from annotation.crowd.workers import MODEL_COLUMNS, WorkerModels, machine_choices, worker_models
from annotation.models import Campaign, WorkerStop
from annotation.models.access import visible_or_404
from annotation.quality.annotators import COLUMNS, column_label, quality_frame, sorted_records
from annotation.quality.checks import speeding_floor_ms
from crux_app.csv_safety import safe_frame
from crux_app.roles import ResearcherRequiredMixin


class QualitySort(forms.Form):
    sort = forms.ChoiceField(choices=[(c, c) for c in (*COLUMNS, *MODEL_COLUMNS)], required=False)
    order = forms.ChoiceField(choices=[("asc", "asc"), ("desc", "desc")], required=False)
    # The crowd model whose skills and confusions are shown (the aggregation's declared
    # choices), the machine judges that join it, and whether to compare every method with
    # the adjudicated reference (each method is fitted: slower).
    method = forms.ChoiceField(
        choices=AggregationParams.declared()["method"].choices, required=False, label="Model"
    )
    machines = forms.MultipleChoiceField(
        required=False,
        label="Machine judges as workers",
        widget=forms.CheckboxSelectMultiple,
    )
    compare = forms.BooleanField(required=False, label="Compare every model with the reference")

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["machines"].choices = [(m, m) for m in machine_choices(campaign)]

    def models(self, campaign: Campaign, compare: bool = False) -> WorkerModels:
        method = self.cleaned_data["method"] or DEFAULT_METHOD
        return worker_models(campaign, method, self.cleaned_data["machines"], compare)


def _refused(form: forms.Form) -> HttpResponse:
    errors = "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())
    return HttpResponse(errors, status=400, content_type="text/plain; charset=utf-8")


class AnnotatorQualityView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, pk=pk)
        form = QualitySort(request.GET, campaign=campaign)
        if not form.is_valid():
            return _refused(form)
        models = form.models(campaign, compare=form.cleaned_data["compare"])
        model_query = urlencode(
            {"method": models.method, "machines": form.cleaned_data["machines"]}, doseq=True
        )
        sort = form.cleaned_data["sort"] or "annotator"
        descending = form.cleaned_data["order"] == "desc"
        headers = [
            {
                "key": c,
                "label": column_label(c),
                "order": "asc" if (c == sort and descending) or c != sort else "desc",
                "arrow": ("▼" if descending else "▲") if c == sort else "",
            }
            for c in (*COLUMNS, *MODEL_COLUMNS)
        ]
        context = {
            "campaign": campaign,
            "records": sorted_records(campaign, sort, descending, models.extra(), MODEL_COLUMNS),
            "models": models,
            "stops": WorkerStop.objects.filter(campaign=campaign).select_related("annotator"),
            "model_form": form,
            "model_query": model_query,
            "columns": COLUMNS,
            "headers": headers,
            "floor_ms": speeding_floor_ms(campaign.task_type),
        }
        return render(request, "annotation/review/annotator_quality.html", context)


class AnnotatorQualityCsvView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = visible_or_404(request, Campaign.objects, pk=pk)
        form = QualitySort(request.GET, campaign=campaign)
        if not form.is_valid():
            return _refused(form)
        models = form.models(campaign)
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="{campaign.slug}-annotator-quality.csv"'
        )
        frame = quality_frame(campaign, models.extra(), MODEL_COLUMNS)
        safe_frame(frame).to_csv(response, index=False, lineterminator="\n")
        return response
