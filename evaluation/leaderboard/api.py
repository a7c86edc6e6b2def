"""``GET /api/v1/collections/<name>/leaderboard/``: the leaderboard page's table as data, with
the page's choices as query parameters (``judge``, ``tau``, ``k``, ``qrels`` or
``qrels_source``, ``missing_as_zero``, ``sort``, ``order``) and IR measures under ir_measures'
names (nDCG@10, AP, R@10, Rprec). Read from the same cache as the page."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused, field_error
from api.registry import Endpoint
from api.result_rows import filter_parameters
from api.tabular import TABULAR_RENDERERS, flat_rows, number, wants_csv
from crux_app.access import collection_or_404
from crux_app.inputs import EvaluationInputError
from evaluation.leaderboard.board_cache import leaderboard, page_inputs
from evaluation.leaderboard.forms import EVALUATION_SCHEMAS, FORM_DEFAULTS, LeaderboardForm
from evaluation.leaderboard.table import Leaderboard

# Column key -> the metric's name in the API: ir_measures' names for the IR measures; any other
# column is its key, with "@k" when its value depends on the depth.
IR_MEASURE_NAMES = {
    "ndcg": "nDCG@{k}",
    "map": "AP",
    "recall": "R@{k}",
    "rprec": "Rprec",
    "alpha_ndcg": "alpha_nDCG@{k}",
    "coverage": "coverage@{k}",
}


def metric_name(key: str, label: str, k: int | str) -> str:
    template = IR_MEASURE_NAMES.get(key) or (f"{key}@{{k}}" if "{k}" in label else key)
    return template.replace("{k}", str(k))


def board_data(board: Leaderboard, raw_labels: dict[str, str]) -> dict[str, Any]:
    names = {c: metric_name(c, raw_labels.get(c, ""), board.k) for c in board.columns}
    runs = [
        {"run": row["run"], "metrics": {names[c]: number(row.get(c)) for c in board.columns}}
        for row in board.rows
    ]
    warnings = [{"judge": w.judge, "kind": w.kind, "message": w.message} for w in board.warnings]
    return {"k": board.k, "metrics": list(names.values()), "runs": runs, "warnings": warnings}


class LeaderboardApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=filter_parameters("judge", "tau", "k", schemas=EVALUATION_SCHEMAS)
        + [
            OpenApiParameter(n, OpenApiTypes.STR)
            for n in ("qrels", "qrels_source", "missing_as_zero", "sort")
        ]
        + [OpenApiParameter("order", OpenApiTypes.STR, enum=["asc", "desc"])],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Each run's metrics at the chosen judge, tau, k and qrels (CSV: ``?format=csv``)."""
        from evaluation.leaderboard.columns import columns

        collection = collection_or_404(request, name=name)
        inputs = page_inputs(collection)
        data = request.query_params.copy()
        data.pop("format", None)
        if data.get("qrels") and not data.get("qrels_source"):
            data["qrels_source"] = data["qrels"]
        defaults = {**FORM_DEFAULTS, "k": str(inputs.depths.default_k())}
        for key, value in defaults.items():
            if not data.get(key):
                data[key] = value
        form = LeaderboardForm(data, judges=inputs.judges, sources=inputs.sources)
        if not form.is_valid():
            raise FormRefused(form.errors)
        sort, descending = form.sort_key()
        try:
            board = leaderboard(collection, form.params(), sort, descending, inputs.depths)
        except EvaluationInputError as error:
            raise field_error("__all__", str(error)) from None
        body = board_data(board, {c.key: c.label for c in columns()})
        if wants_csv(request):
            return Response(flat_rows(body["runs"], "metrics"))
        return Response({"collection": collection.name, **body})


def api_endpoints() -> tuple[Endpoint, ...]:
    """Declared in the app's config (apps.py)."""
    return (Endpoint("leaderboard", "collections/<str:name>/leaderboard/", LeaderboardApiView),)
