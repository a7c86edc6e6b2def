"""Crowd aggregation through the REST API (mounted by ``api.registry``): list a collection's
aggregated judges, and aggregate a task's labels into one (the JSON of ``manage.py
aggregate_labels --format json``). The body is parsed straight into the declared choices
(``AggregationParams``), with the task and the judges (a list of names)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.crowd.aggregation import METHODS, AggregationError
from annotation.crowd.forms import MAX_JUDGES
from annotation.crowd.label_aggregation import run_aggregation
from annotation.crowd.params import AggregationParams, check_task
from annotation.labels.collection import UnknownJudges
from annotation.models import AggregationRun
from api.errors import field_error
from api.permissions import IsResearcher
from crux_app.access import collection_or_404
from crux_app.parameters import ParameterError


def request_schema() -> dict[str, Any]:
    """The declared choices' schema, with the task and the judges."""
    schema = AggregationParams.schema()
    schema["properties"] = {
        "task": {"type": "string", "description": "a registered annotation task type"},
        **schema["properties"],
        "judges": {
            "type": "array",
            "items": {"type": "string"},
            "maxItems": MAX_JUDGES,
            "description": "workers (default: every person); machine judges may join",
        },
    }
    schema["required"] = ["task", *schema.get("required", [])]
    return schema


def _judges(body: dict[str, Any]) -> tuple[str, ...]:
    judges = body.get("judges", [])  # absent: every person; "" or null are wrong types
    if not isinstance(judges, list) or not all(isinstance(j, str) and j for j in judges):
        raise field_error("judges", "a list of judge names")
    if len(judges) > MAX_JUDGES:
        raise field_error("judges", f"at most {MAX_JUDGES} judges")
    return tuple(dict.fromkeys(judges))


def run_data(run: AggregationRun) -> dict[str, Any]:
    return {
        "judge": run.judge.name,
        "task": run.task_type,
        "method": run.method,
        "implementation": METHODS.get(run.method, ("", ""))[1],
        "seed": run.seed,
        "campaign": run.campaign_slug,
        "n_items": run.n_items,
        "machines": run.machines,
        "workers": run.workers,
    }


class LabelAggregationsView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(operation_id="collection_aggregations_list", responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, name: str) -> Response:
        """The collection's aggregated judges, each with its workers' skills and confusions."""
        collection = collection_or_404(request, name=name)
        runs = AggregationRun.objects.filter(collection=collection).select_related("judge")
        return Response([run_data(r) for r in runs])

    @extend_schema(
        request={"application/json": request_schema()}, responses={201: OpenApiTypes.OBJECT}
    )
    def post(self, request: Request, name: str) -> Response:
        """Aggregate a task's labels into the judge ``aggregated:<name>``: items with label,
        confidence and labels seen; workers with estimated skill."""
        collection = collection_or_404(request, name=name, write=True)
        body = request.data if isinstance(request.data, dict) else {}
        try:
            task = check_task(body.get("task", ""))
            params = AggregationParams.from_params(body)
        except ParameterError as error:
            raise field_error(error.name or "__all__", str(error)) from None
        judges = _judges(body)
        try:
            result = run_aggregation(collection, task, params, judges)
        except UnknownJudges as error:
            raise field_error("judges", str(error)) from None
        except AggregationError as error:
            field, _, message = str(error).partition(": ")
            known = field in {"campaign", "name"}
            where = field if known else "__all__"
            raise field_error(where, message if known else str(error)) from None
        return Response(result.as_json(), status=status.HTTP_201_CREATED)


def register_api() -> None:
    """Mount the endpoint under /api/v1/ (from ``AnnotationConfig.ready``)."""
    from api.registry import register_endpoint

    register_endpoint(
        "collection-aggregations", "collections/<str:name>/aggregations/", LabelAggregationsView
    )
