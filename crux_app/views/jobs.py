"""Jobs pages (researchers only): list with live progress, detail with errors, queue place,
time left and the page the job fills; retry and cancel."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.views import View

from crux_app.jobs.service import JobNotCancellable, JobNotRetryable, cancel_job, retry_job
from crux_app.jobs.status import job_status
from crux_app.models import Job
from crux_app.roles import ResearcherRequiredMixin

LIST_LIMIT = 100


def _table_context() -> dict:
    jobs = Job.objects.select_related("collection", "topic", "created_by")[:LIST_LIMIT]
    # Polling stops once nothing is pending or running: the swapped-in table then has no trigger.
    return {"jobs": jobs, "polling": Job.objects.unfinished().exists()}


class JobListView(ResearcherRequiredMixin, View):
    def get(self, request):
        return render(request, "crux_app/jobs/job_list.html", _table_context())


class JobTableView(ResearcherRequiredMixin, View):
    """The jobs table alone, polled by the list page while a job is unfinished."""

    def get(self, request):
        return render(request, "crux_app/jobs/_job_table.html", _table_context())


class JobDetailView(ResearcherRequiredMixin, View):
    def get(self, request, pk: int):
        job = get_object_or_404(
            Job.objects.select_related("collection", "topic", "created_by"), pk=pk
        )
        context = {"job": job, "status": job_status(job)}
        if request.htmx:
            return render(request, "crux_app/jobs/_job_status.html", context)
        return render(request, "crux_app/jobs/job_detail.html", context)


class JobRetryView(ResearcherRequiredMixin, View):
    def post(self, request, pk: int):
        job = get_object_or_404(Job, pk=pk)
        try:
            retry_job(job)
        except JobNotRetryable as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Sent {job} again; only missing items will be done.")
        return redirect("job-detail", pk=job.pk)


class JobCancelView(ResearcherRequiredMixin, View):
    """Cancel a pending job at once, a running one before its next batch."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        job = get_object_or_404(Job, pk=pk)
        try:
            cancel_job(job)
        except JobNotCancellable as exc:
            messages.error(request, str(exc))
        else:
            if job.state == Job.State.CANCELLED:
                messages.success(request, f"Cancelled {job} before a worker started it.")
            else:
                messages.success(
                    request,
                    f"Cancelling {job}: it stops after its current batch; stored results are kept.",
                )
        return redirect("job-detail", pk=job.pk)


urlpatterns = [
    path("jobs/", JobListView.as_view(), name="job-list"),
    path("jobs/table/", JobTableView.as_view(), name="job-table"),
    path("jobs/<int:pk>/", JobDetailView.as_view(), name="job-detail"),
    path("jobs/<int:pk>/retry/", JobRetryView.as_view(), name="job-retry"),
    path("jobs/<int:pk>/cancel/", JobCancelView.as_view(), name="job-cancel"),
]
