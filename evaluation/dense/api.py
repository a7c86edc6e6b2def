"""DENSE's stored results through the API (``manage.py dense``'s records, read from stored rows
only): ``GET /api/v1/collections/<name>/dense/`` one record per question (the newest per
topic, run and k; filters ``run``, ``k``, ``topic``), and ``.../dense/summary/`` the per-run
figures (``manage.py dense --summary``). JSON pages, or every row with ``?format=csv``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.registry import Endpoint, ResultTable
from api.result_rows import (
    FILTERS,
    ResultRowsForm,
    filter_parameters,
    named_run,
    named_topic,
    query_form,
    row_response,
)
from api.tabular import TABULAR_RENDERERS
from crux_app.access import collection_or_404
from evaluation.dense.collection_summary import collection_summary
from evaluation.dense.models import DenseResult
from evaluation.dense.stored_results import latest_results, question_record

PAGED = [OpenApiParameter(n, int) for n in ("page", "page_size")]


def csv_record(result: DenseResult) -> dict[str, Any]:
    """One question as flat cells: the record without its matrices and lists."""
    record = question_record(result)
    answers = record.pop("answers")
    for nested in ("W", "labels", "passage_ids"):
        record.pop(nested)
    return {**record, "answer": answers["original"], "final_answer": answers["final"]}


class DenseResultsApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=filter_parameters(*FILTERS) + PAGED,
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Each question's DSE, entailment matrix W, chunk labels, answers and refinement
        (``manage.py dense``'s records); CSV: the scalar fields, one row per question."""
        collection = collection_or_404(request, name=name)
        data = query_form(request, ResultRowsForm)
        run = named_run(collection, data["run"])
        topic = named_topic(collection, data["topic"])
        rows = latest_results(collection, run, data["k"])
        if topic is not None:
            rows = [r for r in rows if r.topic_id == topic.pk]
        return row_response(request, self, rows, question_record, csv_record)


class DenseSummaryApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(parameters=filter_parameters("run"), responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, name: str) -> Response:
        """Per run and k: questions, uncertain share, mean DSE, accuracy, AUROC and AUARC of
        DSE (``manage.py dense --summary``); CSV without the accuracy bins."""
        collection = collection_or_404(request, name=name)
        data = query_form(request, ResultRowsForm)
        summaries = collection_summary(collection, named_run(collection, data["run"]))
        return row_response(
            request,
            self,
            summaries,
            lambda s: s.as_dict(),
            lambda s: {k: v for k, v in s.as_dict().items() if k != "bins"},
        )


def api_endpoints() -> tuple[Endpoint | ResultTable, ...]:
    return (
        Endpoint("dense-results", "collections/<str:name>/dense/", DenseResultsApiView),
        Endpoint("dense-summary", "collections/<str:name>/dense/summary/", DenseSummaryApiView),
        # Its stored results as rows (Client.results).
        ResultTable("dense", "api-dense-results", FILTERS),
    )
