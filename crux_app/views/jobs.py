"""Jobs pages (researchers only): the list (filtered, paged) with live progress, queue places
and time left; detail with errors, queue place, workers, time left and the page the job fills;
retry, cancel after a confirmation page, and move a waiting job up its queue."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views import View

from crux_app.access import job_or_404
from crux_app.jobs.line import JobNotWaiting, move_up
from crux_app.jobs.listing import job_forms, job_listing
from crux_app.jobs.names import job_title
from crux_app.jobs.service import JobNotCancellable, JobNotRetryable, cancel_job, retry_job
from crux_app.jobs.status import job_status
from crux_app.list_paging import refused
from crux_app.models import Job
from crux_app.roles import ResearcherRequiredMixin


def _listing(request: HttpRequest, template: str) -> HttpResponse:
    filters, paging = job_forms(request.GET)
    if (bad := refused(filters, paging)) is not None:
        return bad
    listing = job_listing(filters, paging, request.GET, request)
    return render(request, template, {"page": listing, "filters": filters})


class JobListView(ResearcherRequiredMixin, View):
    """Jobs newest first, filtered by kind, state and collection, 50 a page."""

    def get(self, request: HttpRequest) -> HttpResponse:
        return _listing(request, "crux_app/jobs/job_list.html")


class JobTableView(ResearcherRequiredMixin, View):
    """The jobs table alone (same filters and page), polled while a job is unfinished."""

    def get(self, request: HttpRequest) -> HttpResponse:
        return _listing(request, "crux_app/jobs/_job_table.html")


class JobDetailView(ResearcherRequiredMixin, View):
    def get(self, request, pk: int):
        jobs = Job.objects.select_related("collection", "topic", "created_by")
        job = job_or_404(request, pk, jobs=jobs)
        context = {
            "job": job,
            "status": job_status(job, who=request),
            # Its controls (cancel, retry, run next, replace) for who may change the job.
            "may_change": Job.objects.visible_to(request, write=True).filter(pk=job.pk).exists(),
        }
        if request.htmx:
            return render(request, "crux_app/jobs/_job_status.html", context)
        return render(request, "crux_app/jobs/job_detail.html", context)


class JobRetryView(ResearcherRequiredMixin, View):
    def post(self, request, pk: int):
        job = job_or_404(request, pk, write=True)
        try:
            retry_job(job)
        except JobNotRetryable as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request, f"Sent {job_title(job)} again; only missing items will be done."
            )
        return redirect("job-detail", pk=job.pk)


class JobMoveUpView(ResearcherRequiredMixin, View):
    """POST: run a waiting job next on its queue (pending, or stalled waiting to resume)."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        job = job_or_404(request, pk, write=True)
        try:
            move_up(job)
        except JobNotWaiting as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request,
                f"Moved {job_title(job)} up: the next task a worker of its queue takes runs it.",
            )
        return redirect("job-detail", pk=job.pk)


class JobCancelView(ResearcherRequiredMixin, View):
    """GET asks to confirm (no script needed); POST cancels a pending job at once, a running
    one before its next batch."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        jobs = Job.objects.select_related("collection", "topic")
        job = job_or_404(request, pk, write=True, jobs=jobs)
        if job.is_finished:
            messages.info(request, f"{job_title(job)} has finished: there is nothing to cancel.")
            return redirect("job-detail", pk=job.pk)
        return render(request, "crux_app/jobs/cancel_confirm.html", {"job": job})

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        job = job_or_404(request, pk, write=True)
        try:
            cancel_job(job)
        except JobNotCancellable as exc:
            messages.error(request, str(exc))
        else:
            if job.state == Job.State.CANCELLED:
                messages.success(request, f"Cancelled {job_title(job)} before a worker started it.")
            else:
                messages.success(
                    request,
                    f"Cancelling {job_title(job)}: it stops after its current batch; stored "
                    "results are kept.",
                )
        return redirect("job-detail", pk=job.pk)


urlpatterns = [
    path("jobs/", JobListView.as_view(), name="job-list"),
    path("jobs/table/", JobTableView.as_view(), name="job-table"),
    path("jobs/<int:pk>/", JobDetailView.as_view(), name="job-detail"),
    path("jobs/<int:pk>/retry/", JobRetryView.as_view(), name="job-retry"),
    path("jobs/<int:pk>/cancel/", JobCancelView.as_view(), name="job-cancel"),
    path("jobs/<int:pk>/move-up/", JobMoveUpView.as_view(), name="job-move-up"),
]
