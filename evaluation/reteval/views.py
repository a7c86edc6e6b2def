"""LLM-retEval pages (researchers only): start a job, the collection's table with its failure
browser, one question's answers and verdicts, and the failure-category campaign button."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views import View

from annotation.queue.selection import SelectionError
from crux_app.access import collection_or_404, topic_or_404
from crux_app.jobs.start_view import JobStartView
from crux_app.roles import ResearcherRequiredMixin
from evaluation.reteval.failures import category_counts, create_failure_campaign, failure_rows
from evaluation.reteval.forms import FailureCampaignForm, RetEvalFilterForm, RetEvalJobForm
from evaluation.reteval.judge_warnings import saturation_warnings
from evaluation.reteval.page import topic_page
from evaluation.reteval.table import RetEvalInputError, build_table, judges, row_dict, table_figure


class RetEvalStartView(JobStartView):
    template = "evaluation/reteval/start.html"
    form_class = RetEvalJobForm
    started_message = "only answers and comparisons not stored yet are computed."


class RetEvalCollectionView(ResearcherRequiredMixin, View):
    template = "evaluation/reteval/collection.html"

    def get(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=collection_pk)
        known = judges(collection)
        form = RetEvalFilterForm(request.GET or None, collection=collection, judges=known)
        context: dict[str, object] = {"collection": collection, "form": form, "judges": known}
        if form.is_bound and not form.is_valid():
            return render(request, self.template, context, status=400)
        data = form.cleaned_data if form.is_bound else {}
        run, k = data.get("run"), data.get("k")
        try:
            table = build_table(
                collection,
                [run.name] if run else None,
                [k] if k else None,
                data.get("judge") or None,
            )
        except RetEvalInputError as error:
            form.add_error(error.field if error.field in form.fields else None, str(error))
            return render(request, self.template, context, status=400)
        rows = failure_rows(collection, table.judge, run, k) if table.judge else []
        records = [row_dict(r) for r in table.rows]
        context |= {
            "table": table,
            "records": records,
            "warnings": saturation_warnings(table.judge, records) if table.judge else [],
            "figure": table_figure(table),
            "failures": rows,
            "counts": category_counts(rows),
        }
        return render(request, self.template, context)


class RetEvalTopicView(ResearcherRequiredMixin, View):
    template = "evaluation/reteval/topic.html"

    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk)
        return render(request, self.template, {"page": topic_page(topic)})


class FailureCampaignView(ResearcherRequiredMixin, View):
    """POST run, k, judge, overlap, name: create the campaign and open its page."""

    def post(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=collection_pk, write=True)  # makes a campaign
        form = FailureCampaignForm(request.POST, collection=collection)
        back = redirect("reteval-collection", collection_pk=collection.pk)
        if not form.is_valid():
            for field, errors in form.errors.items():
                messages.error(request, f"{field}: {' '.join(errors)}")
            return back
        data = form.cleaned_data
        try:
            campaign = create_failure_campaign(
                collection,
                data["judge"],
                data["run"],
                data["k"],
                request.user,
                name=data.get("name") or None,
                overlap=data["overlap"],
            )
        except (ValueError, SelectionError) as error:
            messages.error(request, str(error))
            return back
        messages.success(
            request, f"Created campaign {campaign.name} with {campaign.selection['items']} items."
        )
        return redirect("campaign-detail", pk=campaign.pk)
