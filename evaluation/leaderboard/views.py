"""The collection leaderboard page (researchers only)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.views import View

from crux_app.access import collection_or_404
from crux_app.inputs import (
    EvaluationInputError,
    JudgeInfo,
    collection_judges,
    qrels_sources,
)
from crux_app.judge_choice import remember_judge, remembered_judge
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from evaluation.leaderboard.board_cache import leaderboard, page_inputs, topic_links
from evaluation.leaderboard.forms import FORM_DEFAULTS, LeaderboardForm
from evaluation.leaderboard.table import Leaderboard, sort_keys, tau_heatmap

__all__ = ["topic_links"]  # topic_links: the CRUX disagreements page's too


def table_headers(
    request: HttpRequest,
    labels: dict[str, str],
    columns: tuple[str, ...],
    sort: str,
    descending: bool,
) -> list[dict[str, str]]:
    """Column headers: label, the query that sorts by the column (flipping the order when it is
    the current one) and the current order's arrow."""
    headers = []
    sortable = set(sort_keys())
    for key in ("run", *columns):
        if key not in sortable:
            headers.append({"key": key, "label": labels[key], "query": "", "arrow": ""})
            continue
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


def depth_links(request: HttpRequest, board: Leaderboard) -> list[dict[str, object]]:
    """Each depth with stored values: its columns, and the query that shows it (None for the
    depth shown)."""
    links = []
    for option in board.depth_options():
        query = request.GET.copy()
        query["k"] = str(option.k)
        current = option.k == board.k
        links.append({"option": option, "query": None if current else "?" + query.urlencode()})
    return links


def _form(
    cls, request: HttpRequest, collection: Collection, defaults: dict[str, str] | None = None
):
    return _bound_form(
        cls, request, collection_judges(collection), qrels_sources(collection), defaults
    )


def _bound_form(
    cls,
    request: HttpRequest,
    judges: list[JudgeInfo],
    sources: list[tuple[str, int]],
    defaults: dict[str, str] | None = None,
):
    # Always bound, defaults filled in: a bare URL is a valid request and the selectors show
    # the values in use.
    data = request.GET.copy()
    for name, value in {**FORM_DEFAULTS, **(defaults or {})}.items():
        if not data.get(name):
            data[name] = value
    return cls(data, judges=judges, sources=sources)


def judge_memory(request: HttpRequest, collection: Collection, judges: list[JudgeInfo]) -> dict:
    """The ``judge`` default of the form: the user's last choice on this collection when the
    request names no judge; a request that names one (or "" for the default) is remembered."""
    if "judge" in request.GET:
        named = request.GET.get("judge") or ""
        found = next((j for j in judges if j.name == named), None)
        if found is not None or not named:
            remember_judge(request.session, collection.pk, found.id if found else None)
        return {}
    remembered = remembered_judge(request.session, collection.pk)
    found = next((j for j in judges if j.id == remembered), None)
    return {"judge": found.name} if found else {}


def _is_partial(request: HttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.boosted


class LeaderboardView(ResearcherRequiredMixin, View):
    """Runs x metrics; htmx requests (selectors, header sort) get only the table area.

    Without a k in the query, k is one at which the columns with stored depths have data.
    """

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        # The collection first: its data version keys everything read from the cache below.
        collection = collection_or_404(request, pk=pk)
        inputs = page_inputs(collection)
        depths = inputs.depths
        form = _bound_form(
            LeaderboardForm,
            request,
            inputs.judges,
            inputs.sources,
            {"k": str(depths.default_k()), **judge_memory(request, collection, inputs.judges)},
        )
        context: dict[str, object] = {"collection": collection, "form": form, "depths": depths}
        status = 200
        if not form.is_valid():
            status = 400
        else:
            sort, descending = form.sort_key()
            params = form.params()
            try:
                board = leaderboard(collection, params, sort, descending, depths)
            except EvaluationInputError as error:
                context["error"] = str(error)
            else:
                context |= {
                    "board": board,
                    "params": params,
                    "headers": table_headers(
                        request, {"run": "Run", **board.labels}, board.columns, sort, descending
                    ),
                    "table": board.table(),
                    "cells": board.cell_rows(),
                    "heatmap": tau_heatmap(board),
                    "depth_links": depth_links(request, board),
                    "topics": inputs.topics,
                }
        template = (
            "evaluation/leaderboard/_table.html"
            if _is_partial(request)
            else "evaluation/leaderboard/leaderboard.html"
        )
        response = render(request, template, context, status=status)
        patch_vary_headers(response, ["HX-Request"])
        return response
