"""``GET /api/v1/review-campaigns/<slug>/verdict/``: who was right in a review campaign, as
``manage.py review_verdict --format json`` prints it (per judge: the share decided their way
and the accuracy with Wilson 95% intervals, the confusion against the adjudicated label)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import ReviewCampaign
from crux_app.models import Collection
from evaluation.agreement.review_verdict import review_verdict


class ReviewVerdictApiView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, slug: str) -> Response:
        """The "who was right" page's figures (researchers)."""
        campaigns = ReviewCampaign.objects.select_related("judge").filter(
            collection__in=Collection.objects.visible_to(request)
        )
        campaign = get_object_or_404(campaigns, slug=slug.replace("\x00", ""))
        return Response(review_verdict(campaign).as_dict())
