"""Shared rows as data: a collection's judges, the judgments of one judge, the qrels of one
source (JSON pages; CSV with ``?format=csv``, every row)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import field_error
from api.paging import ApiPagination
from api.result_rows import filter_parameters
from api.tabular import TABULAR_RENDERERS, wants_csv
from crux_app.access import collection_or_404
from crux_app.inputs import (
    EvaluationInputError,
    collection_judges,
    resolve_judge,
    resolve_qrels_source,
)
from crux_app.models import Collection, Judgment, PassageQrel
from crux_app.read_parameters import JUDGE

# Output name -> the row's lookup (renamed after the query: most names are the model's fields).
JUDGMENT_FIELDS = {
    "judge": "judge__name",
    "topic": "topic__external_id",
    "position": "subquestion__position",
    "subquestion": "subquestion__text",
    "passage": "passage__external_id",
    "output": "output__external_id",
    "task": "task",
    "rating": "rating",
    "rationale": "rationale",
}
QREL_FIELDS = {
    "topic": "topic__external_id",
    "passage": "passage__external_id",
    "grade": "grade",
    "source": "source",
}
MAX_NAME = JUDGE.max_length  # the declared read-side judge's (and a qrels source is one)
PAGING = (OpenApiParameter("page", int), OpenApiParameter("page_size", int))
Resolved = TypeVar("Resolved")


def _rows(request: Request, view: APIView, rows: QuerySet, fields: dict[str, str]) -> Response:
    """Every row as CSV, or a page of them as JSON, each with ``fields``' names."""
    lookups = rows.values_list(*fields.values())
    if wants_csv(request):
        return Response([dict(zip(fields, row, strict=True)) for row in lookups])
    paging = ApiPagination()
    page = paging.paginate_queryset(lookups, request, view)
    return paging.get_paginated_response([dict(zip(fields, row, strict=True)) for row in page])


def _name(request: Request, field: str) -> str | None:
    value = request.query_params.get(field)
    if value is None or value == "":
        return None
    if len(value) > MAX_NAME or "\x00" in value:
        raise field_error(field, f"{field} must be a name of at most {MAX_NAME} characters")
    return value


def _resolved(
    request: Request,
    field: str,
    collection: Collection,
    resolve: Callable[[Collection, str | None], Resolved],
) -> Resolved:
    """What ``resolve`` makes of the request's ``field``; its refusal is a 400 naming it."""
    try:
        return resolve(collection, _name(request, field))
    except EvaluationInputError as error:
        raise field_error(field, str(error)) from None


class JudgeListView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, name: str) -> Response:
        """The judges with passage judgments in the collection."""
        judges = collection_judges(collection_or_404(request, name=name))
        return Response(
            [{"name": j.name, "kind": j.kind_name, "judgments": j.n_judgments} for j in judges]
        )


class JudgmentListView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=[
            *filter_parameters("judge", judge="blank: the leaderboard's default"),
            OpenApiParameter("task", str),
            *PAGING,
        ],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Every judgment of one judge in the collection (passage and report items)."""
        collection = collection_or_404(request, name=name)
        judge = _resolved(request, "judge", collection, resolve_judge)
        if judge is None:
            raise field_error("judge", "nobody judged passages of this collection")
        rows = Judgment.objects.filter(topic__collection=collection, judge__name=judge.name)
        task = _name(request, "task")
        if task is not None:
            rows = rows.filter(task=task)
        rows = rows.order_by("topic__external_id", "subquestion__position", "id")
        return _rows(request, self, rows, JUDGMENT_FIELDS)


class QrelsListView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=[
            OpenApiParameter("source", str, description="blank: the source with most rows"),
            *PAGING,
        ],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """The passage qrels of one source (a judge's name for a judge's qrels)."""
        collection = collection_or_404(request, name=name)
        source = _resolved(request, "source", collection, resolve_qrels_source)
        rows = PassageQrel.objects.filter(topic__collection=collection, source=source)
        rows = rows.order_by("topic__external_id", "passage__external_id")
        return _rows(request, self, rows, QREL_FIELDS)
