"""The annotator quality page of a campaign (sortable) and its CSV (cells neutralised, with
Prolific ids for approving and bonusing)."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views import View

from annotation.annotator_quality import COLUMNS, quality_frame, sorted_records
from annotation.models import Campaign
from annotation.quality import speeding_floor_ms
from crux_app.csv_safety import safe_frame
from crux_app.roles import ResearcherRequiredMixin


class QualitySort(forms.Form):
    sort = forms.ChoiceField(choices=[(c, c) for c in COLUMNS], required=False)
    order = forms.ChoiceField(choices=[("asc", "asc"), ("desc", "desc")], required=False)


class AnnotatorQualityView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = get_object_or_404(Campaign, pk=pk)
        form = QualitySort(request.GET)
        if not form.is_valid():
            errors = "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())
            return HttpResponse(errors, status=400, content_type="text/plain; charset=utf-8")
        sort = form.cleaned_data["sort"] or "annotator"
        descending = form.cleaned_data["order"] == "desc"
        headers = [
            {
                "key": c,
                "order": "asc" if (c == sort and descending) or c != sort else "desc",
                "arrow": ("▼" if descending else "▲") if c == sort else "",
            }
            for c in COLUMNS
        ]
        context = {
            "campaign": campaign,
            "records": sorted_records(campaign, sort, descending),
            "columns": COLUMNS,
            "headers": headers,
            "floor_ms": speeding_floor_ms(campaign.task_type),
        }
        return render(request, "annotation/review/annotator_quality.html", context)


class AnnotatorQualityCsvView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = get_object_or_404(Campaign, pk=pk)
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="{campaign.slug}-annotator-quality.csv"'
        )
        safe_frame(quality_frame(campaign)).to_csv(response, index=False, lineterminator="\n")
        return response
