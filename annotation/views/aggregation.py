"""The crowd aggregation page of a collection: the form that aggregates a task's labels into a
judge (post/redirect/get) and the collection's aggregated judges with their workers' skills."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views import View

from annotation.crowd.aggregation import METHODS, AggregationError
from annotation.crowd.forms import AggregationForm
from annotation.crowd.label_aggregation import run_aggregation
from annotation.labels.collection import UnknownJudges
from annotation.models import AggregationRun
from crux_app.access import collection_or_404
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin

TEMPLATE = "annotation/aggregation/aggregation.html"


def _page(collection: Collection, form: AggregationForm) -> dict:
    # The collection was looked up for the asker: its runs are the asker's to see.
    runs = AggregationRun.objects.filter(collection=collection).select_related("judge")
    rows = [
        {
            "run": run,
            "implementation": METHODS.get(run.method, ("", ""))[1],
            "workers": sorted(run.workers, key=lambda w: (-w["skill"], w["judge"])),
        }
        for run in runs
    ]
    return {"collection": collection, "form": form, "rows": rows}


class LabelAggregationView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk)
        form = AggregationForm(initial=request.GET.dict(), collection=collection)
        return render(request, TEMPLATE, _page(collection, form))

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk, write=True)
        form = AggregationForm(request.POST, collection=collection)
        if form.is_valid():
            try:
                params = form.params()
                result = run_aggregation(
                    collection, form.cleaned_data["task"], params, form.cleaned_data["judges"]
                )
            except UnknownJudges as error:
                form.add_error("judges", str(error))
            except AggregationError as error:
                field, _, message = str(error).partition(": ")
                if field in form.fields:
                    form.add_error(field, message)
                else:
                    form.add_error(None, str(error))
            except ValidationError as error:  # a declared rule, naming its field
                form.add_error(None, error)
            else:
                messages.success(
                    request, f"{result.judge.name}: {result.run.n_items} item(s) aggregated."
                )
                return redirect(reverse("label-aggregation", args=[collection.pk]))
        return render(request, TEMPLATE, _page(collection, form), status=400)
