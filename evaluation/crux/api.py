"""``GET /api/v1/collections/<name>/topics/<topic>/coverage-matrix/``: a topic's coverage
matrix as data (the page's payload: rows, columns, every judge's rating codes), with the
page's selectors by name (``judge``, ``run``) and value (``tau``, ``k``)."""

from __future__ import annotations

from django.http import Http404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused, field_error
from api.registry import Endpoint, ResultTable
from api.result_rows import filter_parameters
from api.tabular import TABULAR_RENDERERS, number, wants_csv
from crux_app.access import collection_or_404
from crux_app.inputs import EvaluationInputError, collection_judges, qrels_sources
from crux_app.models import Run, Topic
from crux_app.read_parameters import whole_tau_schema
from evaluation.crux.evaluate import EvaluationParams, evaluate
from evaluation.crux.matrix.forms import MatrixSelectionForm
from evaluation.crux.matrix.matrix import build_matrix
from evaluation.crux.matrix.payload import matrix_payload
from evaluation.crux.matrix.topic_cache import run_rows, stored_topic, topic_rows
from evaluation.crux.record_text import run_records
from evaluation.leaderboard.forms import EVALUATION_SCHEMAS, EvaluationForm

MAX_RUN_NAME = 200  # Run.name's max_length


def _by_name(field: str, value: str | None, choices: dict[str, int]) -> int | None:
    if not value:
        return None
    if value not in choices:
        known = ", ".join(sorted(choices)) or "none"
        raise field_error(field, f"no {field} {value[:100]!r} for this topic; {field}s: {known}")
    return choices[value]


class CoverageMatrixApiView(APIView):
    @extend_schema(
        parameters=filter_parameters(  # the declared read side; the matrix offers whole taus
            "judge", "run", "tau", "k", schemas={"tau": whole_tau_schema()}
        ),
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str, topic: str) -> Response:
        """The matrix of one judge's ratings (sub-questions x passages, the run's top k first);
        ``ratings`` holds every judge's codes (``judges`` order), ``attention`` the cells to
        look at."""
        collection = collection_or_404(request, name=name)
        found = Topic.objects.filter(
            collection=collection, external_id=topic.replace("\x00", "")
        ).first()
        if found is None:
            raise Http404("No such topic in this collection.")
        found.collection = collection
        rows = topic_rows(found)
        options = rows.options
        query = request.query_params
        data = {key: query[key] for key in ("tau", "k") if query.get(key)}
        judge = _by_name("judge", query.get("judge"), {j.name: j.id for j in options.judges})
        run = _by_name("run", query.get("run"), {r.name: r.id for r in options.runs})
        data |= {k: v for k, v in (("judge", judge), ("run", run)) if v is not None}
        form = MatrixSelectionForm(data, options=options)
        if not form.is_valid():
            raise FormRefused(form.errors)
        selection = form.selection()
        stored = stored_topic(found, rows, selection.run, run_rows(found, selection.run))
        matrix = build_matrix(
            found, options, selection.judge, selection.run, selection.tau, selection.k, stored
        )
        cell_url = reverse("crux-topic-cell", args=[found.collection_id, found.pk])
        payload = matrix_payload(matrix, cell_url)
        payload.pop("figure")  # plotly's drawing, not data
        return Response(
            {
                "topic": found.external_id,
                "k": selection.k,
                "covered": matrix.n_covered,
                "answerable": matrix.n_answerable,
                **payload,
            }
        )


class PerTopicApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=filter_parameters("judge", "tau", "k", "run", schemas=EVALUATION_SCHEMAS)
        + [OpenApiParameter(n, str) for n in ("qrels", "qrels_source", "missing_as_zero")],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Each run's CRUX and IR values per topic (``manage.py evaluate --per-topic``'s
        records, computed as the command computes them); CSV: one row per run and topic."""
        collection = collection_or_404(request, name=name)
        data = request.query_params.copy()
        data.pop("format", None)
        if data.get("qrels") and not data.get("qrels_source"):
            data["qrels_source"] = data["qrels"]
        form = EvaluationForm(
            data, judges=collection_judges(collection), sources=qrels_sources(collection)
        )
        if not form.is_valid():
            raise FormRefused(form.errors)
        run = data.get("run") or None
        # A NUL is no run's name (PostgreSQL refuses to compare text holding one).
        named = run is not None and "\x00" not in run and len(run) <= MAX_RUN_NAME
        if run is not None and not (
            named and Run.objects.filter(collection=collection, name=run).exists()
        ):
            raise field_error("run", f"no run {run[:100]!r} in the collection")
        try:
            params = EvaluationParams.from_leaderboard(form.params(), run=run)
            records = run_records(evaluate(collection, params), per_topic=True)
        except EvaluationInputError as error:
            raise field_error("__all__", str(error)) from None
        records = [_plain(r) for r in records]
        if wants_csv(request):
            return Response(
                [{"run": r["run"], **topic} for r in records for topic in r["per_topic"]]
            )
        return Response({"collection": collection.name, "runs": records})


def _plain(value):
    """JSON-safe: numpy numbers as Python numbers, NaN as None."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return number(value)


def api_endpoints() -> tuple[Endpoint | ResultTable, ...]:
    """Declared in CruxConfig (apps.py)."""
    return (
        Endpoint(
            "coverage-matrix",
            "collections/<str:name>/topics/<str:topic>/coverage-matrix/",
            CoverageMatrixApiView,
        ),
        Endpoint("per-topic", "collections/<str:name>/per-topic/", PerTopicApiView),
        # Its stored results as rows (Client.results).
        ResultTable("crux", "api-judgments", ("judge",)),
    )
