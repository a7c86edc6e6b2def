"""The shared shape of a page that starts a collection job: a form, then the job's page."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views import View

from crux_app.jobs.catalog import get_kind
from crux_app.jobs.cost import Estimate
from crux_app.jobs.estimate import job_estimate
from crux_app.jobs.forms import CollectionJobForm
from crux_app.jobs.names import job_title
from crux_app.models import Collection, Job
from crux_app.roles import ResearcherRequiredMixin

RECENT_JOBS = 10


class JobStartView(ResearcherRequiredMixin, View):
    """GET: the form, pre-filled from the query string; POST: start the job, show its page.

    Subclasses set ``template``, ``form_class`` (a ``CollectionJobForm``, whose ``job_kind``
    the page lists the jobs of) and ``started_message``.
    """

    template: str
    form_class: type[CollectionJobForm]
    started_message: str
    # Whether the page shows the job's cost estimate (the judging page shows it in its count).
    shows_estimate = True

    def get(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        collection = get_object_or_404(Collection, pk=collection_pk)
        initial = {name: value for name, value in request.GET.items() if value}
        return self._render(
            request, collection, self.form_class(collection=collection, initial=initial)
        )

    def post(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        collection = get_object_or_404(Collection, pk=collection_pk)
        form = self.form_class(request.POST, collection=collection)
        if not form.is_valid():
            return self._render(request, collection, form, status=400)
        job = form.start(request.user)
        messages.success(request, f"Started {job_title(job)}: {self.started_message}")
        return redirect("job-detail", pk=job.pk)

    def extra_context(self, collection: Collection, form: forms.Form) -> dict[str, object]:
        """More of the page's context (the form is bound on a refused POST, else unbound with
        its initial values from the query string)."""
        return {}

    def _render(
        self, request: HttpRequest, collection: Collection, form: forms.Form, status: int = 200
    ) -> HttpResponse:
        jobs = Job.objects.for_collection(collection).filter(kind=self.form_class.job_kind)
        context = {
            "collection": collection,
            "form": form,
            "jobs": jobs.select_related("topic")[:RECENT_JOBS],
            "estimate": self.estimate(collection, form) if self.shows_estimate else None,
            **self.extra_context(collection, form),
        }
        return render(request, self.template, context, status=status)

    def estimate(self, collection: Collection, form: CollectionJobForm) -> Estimate | None:
        """What the form's job would cost (None: the kind has no planner, or the values, the
        query string's on a GET, are not valid)."""
        if get_kind(self.form_class.job_kind).estimate_work is None:
            return None
        if not form.is_bound:
            form = self.form_class(_initial_data(form), collection=collection)
        if not form.is_valid():
            return None
        try:
            return job_estimate(form.job_kind, form.job_params(), collection, form.job_topic())
        except ValueError:  # parameters the job refuses: the form says why on a POST
            return None


def _initial_data(form: forms.Form) -> dict[str, object]:
    """What the shown form would post: its initial values, else a select's first option
    (model choices by primary key)."""
    data: dict[str, object] = {}
    for name, field in form.fields.items():
        value = form.get_initial_for_field(field, name)
        if value in (None, "") and isinstance(field, forms.ModelChoiceField):
            value = field.queryset.first() if field.empty_label is None else None
        if value is None or value == "":
            continue
        data[name] = getattr(value, "pk", value)
    return data
