"""A method's stored per-query rows as data: the query parameters every such endpoint shares
(``run``, ``k``, ``topic``: the declared read-side parameters, by name and bounded), their
lookup in the collection (a 400 naming the parameter), and the answer: a JSON page of rows,
or every row as CSV (``?format=csv``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django import forms
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused, field_error
from api.paging import ApiPagination
from api.tabular import number, wants_csv
from crux_app.models import Collection, Run, Topic
from crux_app.read_parameters import DECLARED, filter_form, filter_schema

FILTERS = ("run", "k", "topic")  # what every method's rows are filtered by


class ResultRowsForm(filter_form(*FILTERS)):
    """The filters of a method's stored rows, the declared read-side ``run``, ``k`` and
    ``topic`` (crux_app.read_parameters); blank: every value. (Django's CharField refuses a
    NUL, which PostgreSQL cannot compare.)"""


def filter_parameters(
    *names: str, schemas: Mapping[str, dict[str, Any]] | None = None, **descriptions: str
) -> list[OpenApiParameter]:
    """The OpenAPI query parameters of declared read-side parameters, typed and bounded as
    declared (``schemas``: a page's offer of one, e.g. whole taus or k with ``oracle``, made
    from the declaration too; ``descriptions``: an endpoint's own words, e.g. its blank
    judge)."""
    schemas = schemas or {}
    return [
        OpenApiParameter(
            name,
            schemas.get(name) or filter_schema(DECLARED[name]),
            description=descriptions.get(name, DECLARED[name].help),
        )
        for name in names
    ]


def query_form(request: Request, form_class: type[forms.Form], **kwargs: Any) -> dict[str, Any]:
    """The query parameters cleaned by ``form_class`` (``format``, ``page`` and ``page_size``
    are the API's own); a 400 naming each refused field."""
    data = request.query_params.copy()
    for own in ("format", "page", "page_size"):
        data.pop(own, None)
    form = form_class(data, **kwargs)
    if not form.is_valid():
        raise FormRefused(form.errors)
    return form.cleaned_data


def named_run(collection: Collection, name: str) -> Run | None:
    """The collection's run of that name (None for a blank name); a 400 naming ``run``."""
    if not name:
        return None
    run = Run.objects.filter(collection=collection, name=name).first()
    if run is None:
        names = Run.objects.filter(collection=collection).order_by("name")
        known = ", ".join(names.values_list("name", flat=True)[:20]) or "none"
        raise field_error("run", f"no run {name[:100]!r} in the collection; runs: {known}")
    return run


def named_topic(collection: Collection, external_id: str) -> Topic | None:
    """The collection's topic of that id (None for a blank one); a 400 naming ``topic``."""
    if not external_id:
        return None
    topic = Topic.objects.filter(collection=collection, external_id=external_id).first()
    if topic is None:
        raise field_error("topic", f"no topic {external_id[:100]!r} in the collection")
    return topic


def plain(value: Any) -> Any:
    """JSON-safe: numpy numbers as Python numbers, NaN as None, in nested dicts and lists."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return number(value)


def row_response(
    request: Request,
    view: APIView,
    rows: Sequence[Any] | QuerySet,
    record: Callable[[Any], dict[str, Any]],
    csv_record: Callable[[Any], dict[str, Any]] | None = None,
) -> Response:
    """A JSON page of ``record(row)`` (``?page``, ``?page_size``), or with ``?format=csv``
    every row as ``csv_record(row)`` (flat cells; default ``record``)."""
    if wants_csv(request):
        flat = csv_record or record
        return Response([plain(flat(row)) for row in rows])
    paging = ApiPagination()
    page = paging.paginate_queryset(rows, request, view)
    return paging.get_paginated_response([plain(record(row)) for row in page])
