"""Starting a SCAAR job, a collection's SCAAR summary and one answer's diagnosis
(researchers only)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views import View

from crux_app.access import collection_or_404
from crux_app.jobs.start_view import JobStartView
from crux_app.roles import ResearcherRequiredMixin
from evaluation.scaar.forms import ScaarJobForm
from evaluation.scaar.models import ScaarAnalysis
from evaluation.scaar.page import collection_summaries, sentence_views

MAX_LISTED = 500


class ScaarStartView(JobStartView):
    template = "evaluation/scaar/start.html"
    form_class = ScaarJobForm
    started_message = "only outputs not analysed with these settings are analysed."


class CollectionScaarView(ResearcherRequiredMixin, View):
    template = "evaluation/scaar/collection.html"

    def get(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=collection_pk)
        analyses = (
            ScaarAnalysis.objects.filter(collection=collection)
            .select_related("output", "topic")
            .order_by("output__system", "output__external_id", "-created_at")
        )
        context = {
            "collection": collection,
            "summaries": collection_summaries(collection),
            "analyses": analyses[:MAX_LISTED],
            "n_analyses": analyses.count(),
        }
        return render(request, self.template, context)


class AnswerScaarView(ResearcherRequiredMixin, View):
    template = "evaluation/scaar/answer.html"

    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=collection_pk)
        analysis = get_object_or_404(
            ScaarAnalysis.objects.select_related("output", "topic"), pk=pk, collection=collection
        )
        sentences = sentence_views(analysis)
        figures = {f"scaar-figure-{s.index}": s.figure for s in sentences}
        context = {
            "analysis": analysis,
            "collection": collection,
            "settings": analysis.detail.get("settings", {}),
            "sentences": sentences,
            "figures": figures,
        }
        return render(request, self.template, context)
