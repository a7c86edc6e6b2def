"""SCAAR's stored analyses through the API (``manage.py scaar``'s records, from stored rows
only): ``GET /api/v1/collections/<name>/scaar/`` one record per analysed answer (sentences,
words with their probabilities, contributions and thresholds, triggers, queries, retrieved
passages, scores; filters ``system``, ``output``, ``topic``), and ``.../scaar/summary/`` N_R
and S_eff per system. JSON pages; ``?format=csv`` every answer's scalar fields."""

from __future__ import annotations

import json
from dataclasses import asdict

from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import field_error
from api.paging import ApiPagination
from api.registry import Endpoint, ResultTable
from api.result_rows import filter_parameters, named_topic, plain, query_form
from api.tabular import TABULAR_RENDERERS, wants_csv
from crux_app.access import collection_or_404
from crux_app.read_parameters import filter_form
from evaluation.scaar.export import CSV_COLUMNS, _external_ids, answer_record
from evaluation.scaar.models import ScaarAnalysis
from evaluation.scaar.page import collection_summaries

PAGED = [OpenApiParameter(n, int) for n in ("page", "page_size")]
MAX_NAME = 200


class ScaarRowsForm(filter_form("topic")):
    """The declared read-side ``topic`` filter (crux_app.read_parameters), and SCAAR's own."""

    system = forms.CharField(max_length=MAX_NAME, required=False)
    output = forms.CharField(max_length=MAX_NAME, required=False)


def _csv_record(analysis: ScaarAnalysis) -> dict[str, object]:
    record = answer_record(analysis, {})
    record["settings"] = json.dumps(analysis.params, sort_keys=True)
    return {name: record[name] for name in CSV_COLUMNS}


class ScaarAnswersApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=[OpenApiParameter(n, str) for n in ("system", "output")]
        + filter_parameters("topic")
        + PAGED,
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Each analysed answer with its sentences and words (the SCAAR page's data)."""
        collection = collection_or_404(request, name=name)
        data = query_form(request, ScaarRowsForm)
        rows = ScaarAnalysis.objects.filter(collection=collection)
        if data["output"]:
            if not collection.outputs.filter(external_id=data["output"]).exists():
                raise field_error("output", f"no output {data['output'][:100]!r} in the collection")
            rows = rows.filter(output__external_id=data["output"])
        if data["system"]:
            rows = rows.filter(output__system=data["system"])
        if (topic := named_topic(collection, data["topic"])) is not None:
            rows = rows.filter(topic=topic)
        rows = rows.select_related("output", "topic").order_by(
            "output__system", "output__external_id", "pk"
        )
        if wants_csv(request):
            return Response([plain(_csv_record(a)) for a in rows])
        paging = ApiPagination()
        page = list(paging.paginate_queryset(rows, request, self))
        names = _external_ids(page)  # one query for the page's retrieved passages
        return paging.get_paginated_response([plain(answer_record(a, names)) for a in page])


class ScaarSummaryApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, name: str) -> Response:
        """Per system and settings: answers, N_R and FLARE's N_R, mean score change and
        S_eff (SCAAR's and FLARE's)."""
        collection = collection_or_404(request, name=name)
        rows = [plain(asdict(s)) for s in collection_summaries(collection)]
        if wants_csv(request):
            return Response(rows)
        return Response({"collection": collection.name, "summaries": rows})


def api_endpoints() -> tuple[Endpoint | ResultTable, ...]:
    return (
        Endpoint("scaar-answers", "collections/<str:name>/scaar/", ScaarAnswersApiView),
        Endpoint("scaar-summary", "collections/<str:name>/scaar/summary/", ScaarSummaryApiView),
        # Its stored results as rows (Client.results).
        ResultTable("scaar", "api-scaar-answers", ("system", "output", "topic")),
    )
