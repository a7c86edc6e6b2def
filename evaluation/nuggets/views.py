"""The nugget pages (researchers only): the collection's scores and "where lost" stacked bars
with per-topic counts, and one topic's drill-down. Views parse the form, call ``page``, render."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import View

from crux_app.access import collection_or_404, topic_or_404
from crux_app.jobs.start_view import JobStartView
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from evaluation.nuggets.forms import LossFilterForm, NuggetJobForm
from evaluation.nuggets.losses import sentence_judges, support_judges
from evaluation.nuggets.page import choose, collection_page, topic_page
from evaluation.nuggets.params import LossParams
from evaluation.nuggets.run_scores import assignment_judges


def _form(request: HttpRequest, collection: Collection) -> LossFilterForm:
    return LossFilterForm(
        request.GET or None,
        judges=assignment_judges(collection),
        support_judges=support_judges(collection),
        sentence_judges=sentence_judges(collection),
    )


def _parsed(form: LossFilterForm) -> tuple[dict, LossParams]:
    if form.is_bound:
        return form.cleaned_data, form.params()
    return {}, LossParams()


class NuggetCollectionView(ResearcherRequiredMixin, View):
    template = "evaluation/nuggets/collection.html"

    def get(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=collection_pk)
        form = _form(request, collection)
        if form.is_bound and not form.is_valid():
            context = {"collection": collection, "form": form, "page": None}
            return render(request, self.template, context, status=400)
        data, params = _parsed(form)
        page = collection_page(collection, choose(collection, data, params))
        context = {"collection": collection, "form": form, "page": page, "params": params}
        if page.figure:
            context["figures"] = {"nuggets-losses-figure": page.figure}
        return render(request, self.template, context)


class NuggetTopicView(ResearcherRequiredMixin, View):
    template = "evaluation/nuggets/topic.html"

    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk)
        form = _form(request, topic.collection)
        if form.is_bound and not form.is_valid():
            context = {"topic": topic, "form": form, "page": None}
            return render(request, self.template, context, status=400)
        data, params = _parsed(form)
        page = topic_page(topic, choose(topic.collection, data, params))
        return render(request, self.template, {"topic": topic, "form": form, "page": page})


class NuggetStartView(JobStartView):
    template = "evaluation/nuggets/start.html"
    form_class = NuggetJobForm
    started_message = "only what the judge has not labelled yet is computed."
