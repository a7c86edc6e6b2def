"""The "who was right" page of a review campaign (``manage.py review_verdict`` prints the same
figures)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views import View

from annotation.models import ReviewCampaign
from crux_app.roles import ResearcherRequiredMixin
from evaluation.agreement.review_verdict import DEFINITIONS, review_verdict


class ReviewVerdictView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaign = get_object_or_404(ReviewCampaign.objects.select_related("judge"), pk=pk)
        verdict = review_verdict(campaign)
        confusions = [
            (j, list(zip(verdict.classes, j.confusion, strict=True))) for j in verdict.judges
        ]
        context = {
            "campaign": campaign,
            "verdict": verdict,
            "confusions": confusions,
            "definitions": DEFINITIONS,
        }
        return render(request, "annotation/review/verdict.html", context)
