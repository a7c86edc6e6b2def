"""SePer's stored results through the API, from stored rows only:
``GET /api/v1/collections/<name>/seper/`` one row per scored (question, context): SePer_S,
SePer_H and their Delta against no context (filters ``run``, ``k``, ``topic``, ``context``),
and ``.../seper/correlations/`` what ``manage.py seper_correlations`` prints. JSON pages, or
every row with ``?format=csv``."""

from __future__ import annotations

from typing import Any

from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused, field_error
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
from crux_app.inputs import EvaluationInputError
from crux_app.read_parameters import TAU, filter_form
from evaluation.leaderboard.columns import LeaderboardParams
from evaluation.seper.correlations import run_deltas, seper_correlations
from evaluation.seper.job import DEFAULT_K
from evaluation.seper.models import SeperScore

PAGED = [OpenApiParameter(n, int) for n in ("page", "page_size")]


class SeperRowsForm(ResultRowsForm):
    context = forms.ChoiceField(
        choices=[("", "any"), *SeperScore.ContextKind.choices], required=False
    )


CORRELATION_FILTERS = ("k", "judge", "tau")
K_WORDS = f"the runs' context depth (absent: the SePer job's {DEFAULT_K})"


class SeperCorrelationsForm(filter_form(*CORRELATION_FILTERS)):
    """The declared read-side k, judge and tau (crux_app.read_parameters); blank: k the SePer
    job's default, judge and tau the leaderboard's."""


def score_record(score: SeperScore) -> dict[str, Any]:
    return {
        "topic": score.topic.external_id,
        "subquestion": score.subquestion.position if score.subquestion else None,
        "context": score.context_kind,
        "passage": score.passage.external_id if score.passage else None,
        "run": score.run.name if score.run else None,
        "k": score.k,
        "seper_s": score.seper_s,
        "seper_h": score.seper_h,
        "delta_s": score.delta_s,
        "delta_h": score.delta_h,
        "generator": score.generator,
        "nli": score.nli,
        "params": score.params,
    }


def csv_record(score: SeperScore) -> dict[str, Any]:
    record = score_record(score)
    params = record.pop("params") or {}
    return {**record, **{f"params.{k}": v for k, v in sorted(params.items())}}


class SeperScoresApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=filter_parameters(*FILTERS)
        + [OpenApiParameter("context", str, enum=[c for c, _ in SeperScore.ContextKind.choices])]
        + PAGED,
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Every stored SePer score of the collection's questions (and sub-questions), one
        per context: none, one passage, a run's top-k, the gold passages."""
        collection = collection_or_404(request, name=name)
        data = query_form(request, SeperRowsForm)
        rows = SeperScore.objects.filter(topic__collection=collection)
        if (run := named_run(collection, data["run"])) is not None:
            rows = rows.filter(run=run)
        if (topic := named_topic(collection, data["topic"])) is not None:
            rows = rows.filter(topic=topic)
        if data["k"] is not None:
            rows = rows.filter(k=data["k"])
        if data["context"]:
            rows = rows.filter(context_kind=data["context"])
        rows = rows.select_related("topic", "subquestion", "passage", "run").order_by(
            "topic__external_id", "subquestion__position", "context_kind", "run__name", "k", "pk"
        )
        return row_response(request, self, rows, score_record, csv_record)


class SeperCorrelationsApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=filter_parameters(*CORRELATION_FILTERS, k=K_WORDS),
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Pearson's r of stored Delta-SePer with passage utility, CRUX coverage@k and
        Recall@k, and each run's mean Delta-SePer_S of its top-k (``manage.py
        seper_correlations``); CSV: one row per correlation."""
        collection = collection_or_404(request, name=name)
        form = SeperCorrelationsForm(request.query_params)
        if not form.is_valid():
            raise FormRefused(form.errors)
        k = form.cleaned_data["k"] or DEFAULT_K
        tau = form.cleaned_data["tau"]
        try:
            params = LeaderboardParams(
                judge=form.cleaned_data["judge"] or None,
                tau=TAU.default if tau is None else tau,
                k=k,
            )
            result = seper_correlations(collection, params)
        except EvaluationInputError as error:
            raise field_error("__all__", str(error)) from None
        payload = plain(result.as_dict())
        if wants_csv(request):
            return Response([_flat(row) for row in payload.get("correlations", [])])
        runs = collection.runs.order_by("name").values_list("name", flat=True)
        means = run_deltas(collection, k, runs)
        runs_out = [{"run": n, "delta_seper_s": plain(v)} for n, v in means.items()]
        return Response({"collection": collection.name, **payload, "runs": runs_out})


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: v for k, v in row.items() if not isinstance(v, dict)},
        **{
            f"{k}.{inner}": value
            for k, v in row.items()
            if isinstance(v, dict)
            for inner, value in v.items()
        },
    }


def api_endpoints() -> tuple[Endpoint | ResultTable, ...]:
    return (
        Endpoint("seper-scores", "collections/<str:name>/seper/", SeperScoresApiView),
        # Its stored results as rows (Client.results).
        ResultTable("seper", "api-seper-scores", (*FILTERS, "context")),
        Endpoint(
            "seper-correlations",
            "collections/<str:name>/seper/correlations/",
            SeperCorrelationsApiView,
        ),
    )
