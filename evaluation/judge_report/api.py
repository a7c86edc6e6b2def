"""``GET /api/v1/collections/<name>/judge-report/``: the "Judge vs people" report as data (the
page's choices as query parameters; the same JSON as the page's download)."""

from __future__ import annotations

import json

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused, field_error
from api.registry import Endpoint
from crux_app.access import collection_or_404
from crux_app.inputs import EvaluationInputError
from evaluation.judge_report.export import to_json
from evaluation.judge_report.forms import JudgeReportForm, judge_choices, report_defaults
from evaluation.judge_report.report import build_report
from evaluation.judge_report.views import NEEDS_TWO_JUDGES


class JudgeReportApiView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, name: str) -> Response:
        """The judge-versus-people report of two judges (defaults: the page's)."""
        collection = collection_or_404(request, name=name)
        data = request.query_params.copy()
        data.pop("format", None)
        defaults = report_defaults(collection, data)
        if "judge_a" not in defaults and not data:
            raise field_error("judge_a", NEEDS_TWO_JUDGES)
        for key, value in defaults.items():
            data.setdefault(key, value)
        form = JudgeReportForm(data, judges=judge_choices(collection))
        if not form.is_valid():
            raise FormRefused(form.errors)
        try:
            report = build_report(collection, form.params())
        except EvaluationInputError as error:
            raise field_error("__all__", str(error)) from None
        return Response(json.loads(to_json(report, indent=None)))


def api_endpoints() -> tuple[Endpoint, ...]:
    """Declared in the app's config (apps.py)."""
    return (Endpoint("judge-report", "collections/<str:name>/judge-report/", JudgeReportApiView),)
