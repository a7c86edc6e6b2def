"""The "who was right" page of a review campaign (``manage.py review_verdict`` prints the same
figures)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views import View

from annotation.models import ReviewCampaign
from crux_app.inputs import collection_judges
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from evaluation.agreement.review_verdict import DEFINITIONS, review_verdict
from evaluation.shared.degenerate import judges_rating_warnings


class ReviewVerdictView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        campaigns = ReviewCampaign.objects.select_related("judge", "collection")
        # A campaign of a collection the researcher may not see does not exist for them.
        visible = campaigns.filter(collection__in=Collection.objects.visible_to(request))
        campaign = get_object_or_404(visible, pk=pk)
        verdict = review_verdict(campaign)
        confusions = [
            (j, list(zip(verdict.classes, j.confusion, strict=True))) for j in verdict.judges
        ]
        collection = campaign.collection
        # The judges' passage ratings in the collection, as every page beside their numbers.
        warnings = judges_rating_warnings(
            collection_judges(collection),
            f"in {collection.name}",
            [j.name for j in verdict.judges],
        )
        context = {
            "campaign": campaign,
            "verdict": verdict,
            "confusions": confusions,
            "definitions": DEFINITIONS,
            "warnings": warnings,
        }
        return render(request, "annotation/review/verdict.html", context)
