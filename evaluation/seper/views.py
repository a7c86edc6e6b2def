"""Starting a SePer job, a topic's stored SePer / Delta-SePer, judging the answer equivalence
of its clusters and responses, and Delta-SePer's correlations (researchers only)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View

from crux_app.access import collection_or_404, topic_or_404
from crux_app.inputs import (
    EvaluationInputError,
    collection_judges,
    qrels_sources,
)
from crux_app.jobs.start_view import JobStartView
from crux_app.roles import ResearcherRequiredMixin
from evaluation.leaderboard.forms import EvaluationForm
from evaluation.seper.correlations import seper_correlations
from evaluation.seper.forms import SeperJobForm
from evaluation.seper.job import DEFAULT_K
from evaluation.seper.labels import ClusterEquivalenceForm, ResponseEquivalenceForm
from evaluation.seper.leaderboard_columns import shown_depth, stored_depths
from evaluation.seper.models import AnswerEquivalenceLabel
from evaluation.seper.page import seper_page


class SeperStartView(JobStartView):
    template = "evaluation/seper/start.html"
    form_class = SeperJobForm
    started_message = "only contexts not scored yet are scored."


class TopicSeperView(ResearcherRequiredMixin, View):
    template = "evaluation/seper/topic.html"

    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk)
        answers = AnswerEquivalenceLabel.objects.answers_by_key(request.user.pk, topic.pk)
        return render(request, self.template, {"page": seper_page(topic, answers)})


class ClusterEquivalenceView(ResearcherRequiredMixin, View):
    """POST score, cluster (or response), answer=yes|no: store the researcher's label and
    re-render its form."""

    template = "evaluation/seper/_equivalence.html"
    form_class: type = ClusterEquivalenceForm
    target = "cluster"

    def post(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk, write=True)  # a label is a change
        form = self.form_class(request.POST, topic=topic)
        if not form.is_valid():
            errors = [str(e) for field_errors in form.errors.values() for e in field_errors]
            context = {"topic": topic, "score_id": request.POST.get("score", ""), "errors": errors}
            context["index"] = request.POST.get(self.target, "")
            # 200, as a classic form re-render: htmx swaps it in (it leaves 4xx unswapped).
            return render(request, self.template, context)
        label, created = form.save(request.user)
        context = {
            "topic": topic,
            "score_id": label.seper_score_id,
            "index": form.cleaned_data[self.target],
            "judged": label.equivalent,
            "machine": label.machine_decision,
            "saved": "saved" if created else "updated",
        }
        return render(request, self.template, context)


class ResponseEquivalenceView(ClusterEquivalenceView):
    template = "evaluation/seper/_response_equivalence.html"
    form_class = ResponseEquivalenceForm
    target = "response"


class SeperCorrelationsView(ResearcherRequiredMixin, View):
    """Delta-SePer's Pearson correlations with utility labels, CRUX coverage and Recall@k."""

    template = "evaluation/seper/correlations.html"

    def get(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=collection_pk)
        data = request.GET.copy()
        # Without a k asked for, the k the jobs ran at (not the start form's default).
        if not data.get("k"):
            data["k"] = str(shown_depth(collection, DEFAULT_K))
        data.setdefault("tau", "3")
        form = EvaluationForm(
            data, judges=collection_judges(collection), sources=qrels_sources(collection)
        )
        result, error = None, None
        if form.is_valid():
            try:
                result = seper_correlations(collection, form.params())
            except EvaluationInputError as failure:
                error = str(failure)
        status = 200 if result is not None else 400
        context = {
            "collection": collection,
            "form": form,
            "result": result,
            "error": error,
            "stored_ks": stored_depths(collection),
        }
        return render(request, self.template, context, status=status)
