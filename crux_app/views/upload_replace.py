"""A failed import's replacement upload, from its job page: store the new file or folder, point
the job at it and send the job again (``crux_app.dataio.imports.job.replace_import_upload``).

Like the upload page, the body streams to disk up to ``UPLOAD_MAX_BYTES``
(``streams_uploads``); a refused upload renders the job page again with the reason (400, or
413 when too large; 409 when the job is not a failed import).
"""

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views import View

from crux_app.access import job_or_404
from crux_app.dataio.catalog import IMPORT_FORMATS
from crux_app.dataio.imports.job import (
    ImportJobParams,
    NotReplaceable,
    check_replaceable,
    replace_import_upload,
)
from crux_app.dataio.uploads import UploadRejected, remove_upload
from crux_app.jobs.status import job_status
from crux_app.models import Job
from crux_app.roles import ResearcherRequiredMixin

from .upload import store_upload


class ReplaceUploadForm(forms.Form):
    relative_paths = forms.CharField(required=False, widget=forms.HiddenInput)


class ReplaceUploadView(ResearcherRequiredMixin, View):
    streams_uploads = True  # RequestBodyLimitMiddleware: bodies up to UPLOAD_MAX_BYTES

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        jobs = Job.objects.select_related("collection", "topic", "created_by")
        job = job_or_404(request, pk, write=True, jobs=jobs)
        try:
            check_replaceable(job)
        except NotReplaceable as refusal:
            return _refuse(request, job, str(refusal), 409)
        try:
            config = ImportJobParams.from_params(job.params)
        except ValueError as broken:
            return _refuse(request, job, f"This job's parameters are unusable: {broken}.", 400)
        form = ReplaceUploadForm(request.POST)
        if not form.is_valid():
            return _refuse(request, job, "The folder's file paths did not arrive.", 400)
        source = IMPORT_FORMATS[config.format].source
        try:
            stored = store_upload(request, source, form.cleaned_data["relative_paths"])
        except UploadRejected as failure:
            return _refuse(request, job, str(failure), failure.status)
        try:
            job = replace_import_upload(job, stored)
        except NotReplaceable as refusal:  # another request retried it meanwhile
            remove_upload(stored.source)
            return _refuse(request, job, str(refusal), 409)
        files = "1 file" if stored.files == 1 else f"{stored.files} files"
        messages.success(request, f"Uploaded {files}; job #{job.pk} imports them again.")
        return redirect("job-detail", pk=job.pk)


def _refuse(request: HttpRequest, job: Job, reason: str, status: int) -> HttpResponse:
    """The job page again, the reason shown above the replacement form."""
    job.refresh_from_db()
    context = {
        "job": job,
        "status": job_status(job, who=request),
        "replace_error": reason,
        "may_change": True,  # only who may change the job gets here
    }
    return render(request, "crux_app/jobs/job_detail.html", context, status=status)


urlpatterns = [
    path("jobs/<int:pk>/replace-upload/", ReplaceUploadView.as_view(), name="job-replace-upload")
]
