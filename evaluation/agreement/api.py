"""``GET /api/v1/collections/<name>/agreement/``: the agreement report as data (the page's
choices as query parameters; JSON as the page's download, CSV with ``?format=csv``); the
endpoints the agreement app declares (with a review campaign's verdict, ``verdict_api.py``)."""

from __future__ import annotations

import json

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused, field_error
from api.registry import Endpoint
from api.tabular import TABULAR_RENDERERS, wants_csv
from crux_app.access import collection_or_404
from crux_app.inputs import EvaluationInputError
from evaluation.agreement.forms import FORM_DEFAULTS, AgreementForm
from evaluation.agreement.label_tables import collection_campaigns, collection_raters
from evaluation.agreement.report_cache import agreement_report
from evaluation.agreement.report_export import to_csv, to_json
from evaluation.agreement.verdict_api import ReviewVerdictApiView


class AgreementApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, name: str) -> Response | HttpResponse:
        """The agreement report of the page, from the same cached report."""
        collection = collection_or_404(request, name=name)
        data = request.query_params.copy()
        data.pop("format", None)
        for key, value in FORM_DEFAULTS.items():
            data.setdefault(key, value)
        form = AgreementForm(
            data, raters=collection_raters(collection), campaigns=collection_campaigns(collection)
        )
        if not form.is_valid():
            raise FormRefused(form.errors)
        try:
            report = agreement_report(collection, form.options())
        except EvaluationInputError as error:
            raise field_error("__all__", str(error)) from None
        if wants_csv(request):
            return HttpResponse(to_csv(report), content_type="text/csv; charset=utf-8")
        return Response(json.loads(to_json(report, indent=None)))


def api_endpoints() -> tuple[Endpoint, ...]:
    """Declared in the app's config (apps.py)."""
    return (
        Endpoint("agreement", "collections/<str:name>/agreement/", AgreementApiView),
        Endpoint("review-verdict", "review-campaigns/<slug:slug>/verdict/", ReviewVerdictApiView),
    )
