"""The collection leaderboard and disagreements pages (researchers only)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, path, reverse
from django.utils.cache import patch_vary_headers
from django.views import View

from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from evaluation.leaderboard_forms import FORM_DEFAULTS, EvaluationForm, LeaderboardForm
from evaluation.services.disagreements import judge_disagreements, topic_disagreements
from evaluation.services.evaluate import evaluate
from evaluation.services.evaluation_inputs import (
    EvaluationInputError,
    collection_judges,
    qrels_sources,
)
from evaluation.services.leaderboard import (
    build_leaderboard,
    metric_labels,
    sort_keys,
    tau_heatmap,
)

# Rows shown per disagreement list; the page says how many there are in all.
MAX_ROWS = 200


def topic_links(collection_pk: int, topics: list[tuple[int, str]]) -> list[dict[str, object]]:
    """Each topic's page, and its coverage-matrix page where that page exists."""
    links = []
    for pk, name in topics:
        try:
            matrix = reverse("topic-matrix", args=[collection_pk, pk])
        except NoReverseMatch:
            matrix = None
        links.append(
            {
                "pk": pk,
                "name": name,
                "url": reverse("topic-detail", args=[collection_pk, pk]),
                "matrix_url": matrix,
            }
        )
    return links


def table_headers(
    request: HttpRequest, labels: dict[str, str], sort: str, descending: bool
) -> list[dict[str, str]]:
    """Column headers: label, the query that sorts by the column (flipping the order when it is
    the current one) and the current order's arrow."""
    headers = []
    for key in sort_keys():
        query = request.GET.copy()
        query["sort"] = key
        if key == sort:
            query["order"] = "asc" if descending else "desc"
        else:
            query.pop("order", None)
        arrow = ("▼" if descending else "▲") if key == sort else ""
        headers.append(
            {"key": key, "label": labels[key], "query": "?" + query.urlencode(), "arrow": arrow}
        )
    return headers


def _form(cls, request: HttpRequest, collection: Collection):
    # Always bound, defaults filled in: a bare URL is a valid request and the selectors show
    # the values in use.
    data = request.GET.copy()
    for name, value in FORM_DEFAULTS.items():
        data.setdefault(name, value)
    return cls(
        data,
        judges=collection_judges(collection),
        sources=qrels_sources(collection),
    )


def _is_partial(request: HttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.boosted


class LeaderboardView(ResearcherRequiredMixin, View):
    """Runs x metrics; htmx requests (selectors, header sort) get only the table area."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = get_object_or_404(Collection, pk=pk)
        form = _form(LeaderboardForm, request, collection)
        context: dict[str, object] = {"collection": collection, "form": form}
        status = 200
        if not form.is_valid():
            status = 400
        else:
            sort, descending = form.sort_key()
            params = form.params()
            try:
                board = build_leaderboard(collection, params, sort, descending)
            except EvaluationInputError as error:
                context["error"] = str(error)
            else:
                context |= {
                    "board": board,
                    "params": params,
                    "headers": table_headers(
                        request,
                        {"run": "Run", "missing_judgments": "Missing judgments", **board.labels},
                        sort,
                        descending,
                    ),
                    "table": board.table(),
                    "heatmap": tau_heatmap(board),
                    "topics": topic_links(collection.pk, board.topics),
                }
        template = (
            "evaluation/_leaderboard_table.html"
            if _is_partial(request)
            else "evaluation/leaderboard.html"
        )
        response = render(request, template, context, status=status)
        patch_vary_headers(response, ["HX-Request"])
        return response


class DisagreementsView(ResearcherRequiredMixin, View):
    """Topics where coverage and nDCG / Recall rank runs differently; LLM-vs-human cells."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = get_object_or_404(Collection, pk=pk)
        form = _form(EvaluationForm, request, collection)
        context: dict[str, object] = {"collection": collection, "form": form}
        if not form.is_valid():
            return render(request, "evaluation/disagreements.html", context, status=400)
        params = form.params()
        try:
            evaluation = evaluate(collection, params)
        except EvaluationInputError as error:
            context["error"] = str(error)
            return render(request, "evaluation/disagreements.html", context)
        topics = topic_disagreements(evaluation)
        cells = judge_disagreements(collection, params.tau, evaluation.judge)
        topic_pairs = zip(evaluation.topic_ids.tolist(), evaluation.topic_names, strict=True)
        links = {t["pk"]: t for t in topic_links(collection.pk, list(topic_pairs))}
        context |= {
            "evaluation": evaluation,
            "params": params,
            "labels": metric_labels(params.k),
            "topic_rows": [(d, links[d.topic_id]) for d in topics[:MAX_ROWS]],
            "n_topic_rows": len(topics),
            "cell_rows": [(c, links[c.topic_id]) for c in cells[:MAX_ROWS]],
            "n_cell_rows": len(cells),
            "max_rows": MAX_ROWS,
        }
        return render(request, "evaluation/disagreements.html", context)


urlpatterns = [
    path("collections/<int:pk>/leaderboard/", LeaderboardView.as_view(), name="leaderboard"),
    path(
        "collections/<int:pk>/disagreements/",
        DisagreementsView.as_view(),
        name="disagreements",
    ),
]
