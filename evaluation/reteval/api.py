"""LLM-retEval's stored results through the API, from stored rows only:
``GET /api/v1/collections/<name>/reteval/`` one row per (question, run, k) of one judge:
Recall/Precision/F1@k, the CompareGPT verdict and its votes, lexical correctness and the
failure category (filters ``run``, ``k``, ``topic``, ``judge``, ``category``), and
``.../reteval/table/`` the per-run table (``manage.py reteval``). JSON pages, or every row
with ``?format=csv``."""

from __future__ import annotations

from typing import Any

from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import field_error
from api.registry import Endpoint, ResultTable
from api.result_rows import (
    FILTERS,
    ResultRowsForm,
    filter_parameters,
    named_run,
    named_topic,
    plain,
    query_form,
    row_response,
)
from api.tabular import TABULAR_RENDERERS, wants_csv
from crux_app.access import collection_or_404
from crux_app.read_parameters import filter_fields, filter_form
from evaluation.reteval.method.verdicts import CATEGORIES
from evaluation.reteval.models import RetEvalResult
from evaluation.reteval.table import (
    RetEvalInputError,
    build_table,
    collection_results,
    resolve_judge,
    row_dict,
    table_dict,
)

PAGED = [OpenApiParameter(n, int) for n in ("page", "page_size")]


JUDGE_WORDS = "a judge model id (absent: the judge with most results)"


class RetEvalRowsForm(ResultRowsForm):
    judge = filter_fields("judge")["judge"]  # the declared read-side judge
    category = forms.ChoiceField(
        choices=[("", "any"), *((c, c) for c in CATEGORIES)], required=False
    )


TABLE_FILTERS = ("run", "k", "judge")


class RetEvalTableForm(filter_form(*TABLE_FILTERS)):
    """The declared read-side run, k and judge (crux_app.read_parameters)."""


def result_record(result: RetEvalResult) -> dict[str, Any]:
    return {
        "topic": result.topic.external_id,
        "run": result.run.name,
        "k": result.k,
        "judge": result.judge,
        "recall": result.recall,
        "precision": result.precision,
        "f1": result.f1,
        "verdict": result.verdict,
        "yes": result.n_yes,
        "no": result.n_no,
        "unparsable": result.n_unparsable,
        "answer": result.rag_output.text,
        "answer_correct": result.answer_correct,
        "category": result.category or None,
        "category_reason": result.category_reason,
    }


def _judge(collection, name: str) -> str | None:
    try:
        return resolve_judge(collection, name or None)
    except RetEvalInputError as error:
        raise field_error(error.field, str(error)) from None


class RetEvalResultsApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=filter_parameters(*FILTERS, "judge", judge=JUDGE_WORDS)
        + [OpenApiParameter("category", str, enum=list(CATEGORIES))]
        + PAGED,
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Each question's LLM-retEval under a run's top-k, by one judge (blank: the judge
        with most results)."""
        collection = collection_or_404(request, name=name)
        data = query_form(request, RetEvalRowsForm)
        run = named_run(collection, data["run"])
        topic = named_topic(collection, data["topic"])
        judge = _judge(collection, data["judge"])
        rows = collection_results(collection).filter(judge=judge or "")
        if run is not None:
            rows = rows.filter(run=run)
        if topic is not None:
            rows = rows.filter(topic=topic)
        if data["k"] is not None:
            rows = rows.filter(k=data["k"])
        if data["category"]:
            rows = rows.filter(category=data["category"])
        rows = rows.select_related("topic", "run", "rag_output").order_by(
            "run__name", "k", "topic__external_id", "pk"
        )
        return row_response(request, self, rows, result_record)


class RetEvalTableApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=filter_parameters(*TABLE_FILTERS, judge=JUDGE_WORDS),
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Per run and k: Recall/Precision/F1@k, LLM-retEval@k, answer accuracy, failure
        counts and Spearman's rho (the paper's Tables 1 and 2; ``manage.py reteval``)."""
        collection = collection_or_404(request, name=name)
        data = query_form(request, RetEvalTableForm)
        try:
            table = build_table(
                collection,
                [data["run"]] if data["run"] else None,
                [data["k"]] if data["k"] else None,
                data["judge"] or None,
            )
        except RetEvalInputError as error:
            raise field_error(error.field, str(error)) from None
        if wants_csv(request):
            return Response([plain(row_dict(r)) for r in table.rows])
        return Response(plain(table_dict(table)))


def api_endpoints() -> tuple[Endpoint | ResultTable, ...]:
    return (
        Endpoint("reteval-results", "collections/<str:name>/reteval/", RetEvalResultsApiView),
        Endpoint("reteval-table", "collections/<str:name>/reteval/table/", RetEvalTableApiView),
        # Its stored results as rows (Client.results).
        ResultTable("reteval", "api-reteval-results", (*FILTERS, "judge", "category")),
    )
