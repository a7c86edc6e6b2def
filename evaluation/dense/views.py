"""DENSE pages (researchers only): start a job, the collection's figures, one question's
uncertainty graph with its chunk table and judgment forms."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views import View

from crux_app.access import collection_or_404, topic_or_404
from crux_app.jobs.start_view import JobStartView
from crux_app.models import Run
from crux_app.roles import ResearcherRequiredMixin
from evaluation.dense.collection_summary import accuracy_figure, collection_summary, dse_histogram
from evaluation.dense.forms import (
    DenseJobForm,
    DenseLabelForm,
    DenseResultQueryForm,
    DenseRunFilterForm,
)
from evaluation.dense.judge_warnings import uncertainty_warnings
from evaluation.dense.models import DenseResult
from evaluation.dense.page import question_page
from evaluation.dense.stored_results import latest_results


class DenseStartView(JobStartView):
    template = "evaluation/dense/start.html"
    form_class = DenseJobForm
    started_message = "only questions not evaluated yet with these settings are evaluated."


class CollectionDenseView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk)
        query = DenseRunFilterForm(request.GET, collection=collection)
        if not query.is_valid():
            return _bad_request(query)
        run = query.cleaned_data["run"]
        rows = latest_results(collection, run)
        summaries = collection_summary(collection, run)
        context = {
            "collection": collection,
            "run": run,
            "runs": Run.objects.filter(collection=collection).order_by("name"),
            "rows": rows,
            "summaries": summaries,
            "histogram": dse_histogram(summaries, rows) if rows else None,
            "accuracy": accuracy_figure(summaries),
            "warnings": uncertainty_warnings(rows),
        }
        return render(request, "evaluation/dense/collection.html", context)


def _bad_request(form: forms.Form) -> HttpResponse:
    """400 naming each refused parameter (plain text: messages may quote the value)."""
    return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain; charset=utf-8")


class TopicDenseView(ResearcherRequiredMixin, View):
    """The newest result of the topic, or the one named by ``?result=<id>``."""

    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk)
        results = DenseResult.objects.filter(topic=topic).select_related("run", "topic")
        query = DenseResultQueryForm(request.GET)
        if not query.is_valid():
            return _bad_request(query)
        if query.cleaned_data["result"] is not None:
            result = get_object_or_404(results, pk=query.cleaned_data["result"])
        else:
            result = results.order_by("-created_at", "-pk").first()
        page = question_page(topic, result, request.user.pk)
        return render(request, "evaluation/dense/topic.html", {"page": page})


class DenseLabelView(ResearcherRequiredMixin, View):
    """POST result, kind, i, j, answer=yes|no: store the label; re-render its small form."""

    template = "evaluation/dense/_label_form.html"

    def post(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk, write=True)  # a label is a change
        form = DenseLabelForm(request.POST, topic=topic)
        context = {
            "topic": topic,
            "result_id": request.POST.get("result", ""),
            "kind": request.POST.get("kind", ""),
            "i": request.POST.get("i", "0"),
            "j": request.POST.get("j", "0"),
        }
        if not form.is_valid():
            context["errors"] = [str(e) for errors in form.errors.values() for e in errors]
            # 200, as a classic form re-render: htmx swaps it in (it leaves 4xx unswapped).
            return render(request, self.template, context)
        label, created = form.save(request.user)
        context.update(judged=label.value, saved="saved" if created else "updated")
        return render(request, self.template, context)
