"""CRUX's collection pages (researchers only): starting a judging job for a collection's missing
items with the count of the items the chosen options would judge, and the disagreements page
(topics where coverage and nDCG / Recall rank runs differently, and the cells where the LLM
judge and people disagree). A topic's coverage matrix has its own views (``matrix.views``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View

from crux_app.access import collection_or_404
from crux_app.inputs import EvaluationInputError
from crux_app.jobs.start_view import JobStartView
from crux_app.list_paging import list_form, list_page, refused
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from evaluation.crux.evaluate import EvaluationParams, evaluate
from evaluation.crux.forms import JudgeJobForm, configured_judge_model
from evaluation.crux.judge_preview import count_form, preview
from evaluation.crux.page import judge_disagreements, topic_disagreements
from evaluation.leaderboard.forms import EvaluationForm
from evaluation.leaderboard.table import metric_labels
from evaluation.leaderboard.views import _form, topic_links

COUNT_TEMPLATE = "evaluation/crux/_judge_count.html"
# The paging form prefixes of the disagreements page's two lists.
TOPICS, CELLS = "topics", "cells"


def count_context(collection: Collection, data: Mapping[str, Any]) -> dict[str, object]:
    form = count_form(collection, data)
    return {"count_form": form, "count": preview(form) if form.is_valid() else None}


class JudgeStartView(JobStartView):
    template = "evaluation/crux/start.html"
    form_class = JudgeJobForm
    started_message = "only items the judge has not rated are judged."
    shows_estimate = False  # the count below the options shows it, as they change

    def extra_context(self, collection: Collection, form: forms.Form) -> dict[str, object]:
        context: dict[str, object] = {"configured_model": configured_judge_model()}
        if form.is_bound:  # a refused POST: its errors, at once
            return context | count_context(collection, form.data)
        # Planning the items reads the whole scope (seconds on a large collection): the page
        # asks for the count once it is shown, as it does when an option changes.
        return context | {"counting": True}


class JudgeCountView(ResearcherRequiredMixin, View):
    """The item count of the options in the query string (the page asks as they change);
    options that are not valid get their errors, with status 400."""

    def get(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        # The start page's count: for who may start the job, as the page is.
        collection = collection_or_404(request, pk=collection_pk, write=True)
        context = count_context(collection, request.GET)
        status = 200 if context["count"] is not None else 400
        return render(request, COUNT_TEMPLATE, context, status=status)


class DisagreementsView(ResearcherRequiredMixin, View):
    """Topics where coverage and nDCG / Recall rank runs differently; LLM-vs-human cells."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        topic_paging, cell_paging = list_form(request.GET, TOPICS), list_form(request.GET, CELLS)
        if bad := refused(topic_paging, cell_paging):
            return bad
        collection = collection_or_404(request, pk=pk)
        form = _form(EvaluationForm, request, collection)
        context: dict[str, object] = {"collection": collection, "form": form}
        if not form.is_valid():
            return render(request, "evaluation/crux/disagreements.html", context, status=400)
        params = EvaluationParams.from_leaderboard(form.params())
        try:
            evaluation = evaluate(collection, params)
        except EvaluationInputError as error:
            context["error"] = str(error)
            return render(request, "evaluation/crux/disagreements.html", context)
        topics = topic_disagreements(evaluation)
        cells = judge_disagreements(collection, params.tau, evaluation.judge)
        topic_pairs = zip(evaluation.topic_ids.tolist(), evaluation.topic_names, strict=True)
        links = {t["pk"]: t for t in topic_links(collection.pk, list(topic_pairs))}
        topic_list = list_page(topic_paging, topics, search=_search_topic_rows)
        cell_list = list_page(cell_paging, cells, search=_search_topic_rows)
        context |= {
            "evaluation": evaluation,
            "params": params,
            "labels": metric_labels(params.k),
            "topic_list": topic_list,
            "topic_rows": [(d, links[d.topic_id]) for d in topic_list.rows],
            "cell_list": cell_list,
            "cell_rows": [(c, links[c.topic_id]) for c in cell_list.rows],
        }
        return render(request, "evaluation/crux/disagreements.html", context)


def _search_topic_rows(rows: list, text: str) -> list:
    """The rows whose topic id contains ``text`` (any case)."""
    needle = text.casefold()
    return [row for row in rows if needle in row.topic.casefold()]
