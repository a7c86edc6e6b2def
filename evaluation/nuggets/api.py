"""``GET /api/v1/collections/<name>/nuggets/``: the nugget scores (``manage.py nuggets``'s
JSON) and ``GET /api/v1/collections/<name>/nugget-losses/``: where each run's vital nuggets were
lost (``manage.py nugget_losses``'s JSON), with the page's selectors (judge, support_judge,
sentence_judge, k, tau) checked by its form."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused
from api.registry import Endpoint, ResultTable
from crux_app.access import collection_or_404
from crux_app.models import Collection
from crux_app.read_parameters import JUDGE, filter_schema
from evaluation.nuggets.forms import LossFilterForm
from evaluation.nuggets.losses import (
    losses_json,
    nugget_losses,
    run_losses,
    sentence_judges,
    support_judges,
)
from evaluation.nuggets.page import Choice, choose
from evaluation.nuggets.params import LossParams
from evaluation.nuggets.run_scores import assignment_judges, run_scores, scores_json

JUDGES = ("judge", "support_judge", "sentence_judge")
SELECTORS = (*JUDGES, "k", "tau")
# Each judge selector is the declared read-side judge; k and tau are LossParams' (the same).
JUDGE_PARAMETERS = [
    OpenApiParameter(n, filter_schema(JUDGE), description=f"{n}: {JUDGE.help}") for n in JUDGES
]
LOSS_PARAMETERS = [
    OpenApiParameter(p.name, filter_schema(p), description=p.help) for p in LossParams.declared()
]


def _choice(request: Request, name: str) -> tuple[Collection, Choice]:
    collection = collection_or_404(request, name=name)
    data = {key: request.query_params[key] for key in SELECTORS if key in request.query_params}
    form = LossFilterForm(
        data,
        judges=assignment_judges(collection),
        support_judges=support_judges(collection),
        sentence_judges=sentence_judges(collection),
    )
    if not form.is_valid():
        raise FormRefused(form.errors)
    return collection, choose(collection, form.cleaned_data, form.params())


class NuggetScoresApiView(APIView):
    @extend_schema(parameters=JUDGE_PARAMETERS[:1], responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, name: str) -> Response:
        """Per run and topic the four nugget scores of one judge's assignments, and means."""
        collection, choice = _choice(request, name)
        if choice.settings is None:
            return Response({"runs": []})
        return Response(scores_json(run_scores(collection, choice.settings.judge)))


class NuggetLossesApiView(APIView):
    @extend_schema(parameters=JUDGE_PARAMETERS + LOSS_PARAMETERS, responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, name: str) -> Response:
        """Per run the vital nuggets lost to retrieval, to generation, stated unsupported, or
        delivered (with Wilson intervals when the assignment judge is a person)."""
        collection, choice = _choice(request, name)
        settings = choice.settings
        if settings is None:
            return Response(losses_json([]))
        rows = nugget_losses(collection, settings)
        per_run = run_losses(rows, settings.judge.kind == "human")
        return Response(losses_json(per_run, settings))


def api_endpoints() -> tuple[Endpoint | ResultTable, ...]:
    """Declared in NuggetsConfig (apps.py)."""
    return (
        Endpoint("nugget-scores", "collections/<str:name>/nuggets/", NuggetScoresApiView),
        Endpoint("nugget-losses", "collections/<str:name>/nugget-losses/", NuggetLossesApiView),
        # Its stored results as rows (Client.results).
        ResultTable("nuggets", "api-nugget-scores", ("judge",), rows="runs"),
    )
