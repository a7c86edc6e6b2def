"""Starting a judging job for a collection's missing items, and the count of the items the
chosen options would judge (researchers only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views import View

from crux_app.jobs.start_view import JobStartView
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from evaluation.crux.forms import JudgeJobForm, configured_judge_model
from evaluation.crux.judge_preview import count_form, preview

COUNT_TEMPLATE = "evaluation/crux/_judge_count.html"


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
        collection = get_object_or_404(Collection, pk=collection_pk)
        context = count_context(collection, request.GET)
        status = 200 if context["count"] is not None else 400
        return render(request, COUNT_TEMPLATE, context, status=status)
