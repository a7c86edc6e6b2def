"""The shared shape of a page that starts a collection job: a form, then the job's page; its cost
estimate follows the form (the page asks ``<start>/estimate/`` for it as the values change, and
the kind's declared ``estimate_work`` computes it from the declared params)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.views import View

from crux_app.access import collection_or_404
from crux_app.jobs.catalog import get_kind
from crux_app.jobs.cost import Estimate
from crux_app.jobs.estimate import job_estimate
from crux_app.jobs.forms import CollectionJobForm
from crux_app.jobs.names import job_title
from crux_app.models import Collection, Job
from crux_app.roles import ResearcherRequiredMixin

RECENT_JOBS = 10
ESTIMATE_TEMPLATE = "_partials/job_estimate_area.html"


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
    # The ``estimate/`` door (``start_urls``): only the estimate of the values in the query.
    estimate_only = False

    def get(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        # The form is for starting: a viewer learns at once that they may not (403).
        collection = collection_or_404(request, pk=collection_pk, write=True)
        if self.estimate_only:
            return self._estimate(request, collection)
        initial = {name: value for name, value in request.GET.items() if value}
        return self._render(
            request, collection, self.form_class(collection=collection, initial=initial)
        )

    def post(self, request: HttpRequest, collection_pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=collection_pk, write=True)
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
            "estimate_url": self._estimate_url(request) if self.shows_estimate else None,
            **self.extra_context(collection, form),
        }
        return render(request, self.template, context, status=status)

    def _estimate_url(self, request: HttpRequest) -> str | None:
        match = request.resolver_match
        if match is None or not match.url_name:
            return None
        return reverse(f"{match.view_name}{ESTIMATE_SUFFIX}", kwargs=match.kwargs)

    def _estimate(self, request: HttpRequest, collection: Collection) -> HttpResponse:
        """The estimate of the form's current values (the page asks as they change); values
        the form or the job refuse: their errors, status 400."""
        form = self.form_class(request.GET, collection=collection)
        context: dict[str, object] = {"estimate": None, "errors": []}
        if not form.is_valid():
            context["errors"] = [
                f"{name}: {' '.join(errors)}" if name != "__all__" else " ".join(errors)
                for name, errors in form.errors.items()
            ]
            return render(request, ESTIMATE_TEMPLATE, context, status=400)
        try:
            context["estimate"] = job_estimate(
                form.job_kind, form.job_params(), collection, form.job_topic()
            )
        except ValueError as refused:
            context["errors"] = [str(refused)]
            return render(request, ESTIMATE_TEMPLATE, context, status=400)
        return render(request, ESTIMATE_TEMPLATE, context)

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


ESTIMATE_SUFFIX = "-estimate"


def start_urls(route: str, view: type[JobStartView], name: str) -> list[URLPattern]:
    """A start page's URL and its estimate's (``<route>estimate/``, named ``<name>-estimate``)."""
    return [
        path(route, view.as_view(), name=name),
        path(
            f"{route}estimate/",
            # Read only: a POST here would start the job from the estimate's URL.
            view.as_view(estimate_only=True, http_method_names=["get", "head", "options"]),
            name=f"{name}{ESTIMATE_SUFFIX}",
        ),
    ]


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
