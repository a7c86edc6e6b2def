"""The shared shape of a page that starts a collection job: a form, then the job's page."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views import View

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
            **self.extra_context(collection, form),
        }
        return render(request, self.template, context, status=status)
