"""The disagreements page of a collection: topics where coverage and nDCG / Recall rank runs
differently, and the cells where the LLM judge and people disagree (researchers only)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views import View

from crux_app.inputs import EvaluationInputError
from crux_app.list_paging import list_form, list_page, refused
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from evaluation.crux.disagreements import judge_disagreements, topic_disagreements
from evaluation.crux.evaluate import EvaluationParams, evaluate
from evaluation.leaderboard.forms import EvaluationForm
from evaluation.leaderboard.table import metric_labels
from evaluation.leaderboard.views import _form, topic_links

# The paging form prefixes of the page's two lists.
TOPICS, CELLS = "topics", "cells"


class DisagreementsView(ResearcherRequiredMixin, View):
    """Topics where coverage and nDCG / Recall rank runs differently; LLM-vs-human cells."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        topic_paging, cell_paging = list_form(request.GET, TOPICS), list_form(request.GET, CELLS)
        if bad := refused(topic_paging, cell_paging):
            return bad
        collection = get_object_or_404(Collection, pk=pk)
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
