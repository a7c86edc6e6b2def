"""Upload page: researchers import files and folders from the browser, as a job.

The page validates the form, stores the upload under ``settings.UPLOAD_DIR`` (one uuid folder
per upload) and starts an ``import`` job on the ``cpu`` queue, then shows the job's page: a
large release takes longer than a web request may. The worker runs the same importers as the
commands (``crux_app.dataio.import_job``). Folder formats come from ``<input type=file
webkitdirectory>``: the browser's relative paths travel in a hidden field (Django keeps only
base names) and the files are stored with those paths.

Request bodies: Django's default limits hold everywhere (2.5 MB of form fields, larger files
spooled to disk by the upload handlers). ``RequestBodyLimitMiddleware`` also refuses, before the
CSRF check parses it, any body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413), except one
sent by a researcher to an upload view (this page, a failed import's replacement upload): its
files stream to disk through the upload handlers, up to ``UPLOAD_MAX_BYTES`` (413 above it, by
the body's length before it is read, and by the files' sizes before they are stored).
"""

from collections.abc import Callable

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views import View

from crux_app.collection_names import validate_collection_name
from crux_app.dataio.catalog import IMPORT_FORMATS, ImportFormat, upload_formats
from crux_app.dataio.import_job import ImportJobParams, start_import_job
from crux_app.dataio.uploads import StoredUpload, UploadRejected, store_file, store_folder
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin, is_researcher


class UploadForm(forms.Form):
    format = forms.ChoiceField(choices=[(f.name, f.label) for f in upload_formats()])
    collection = forms.CharField(
        max_length=200,
        validators=[validate_collection_name],
        help_text="an existing collection or a new one",
    )
    split = forms.CharField(max_length=50, required=False)
    tau = forms.IntegerField(min_value=1, max_value=5, required=False)
    run_name = forms.CharField(max_length=200, required=False)
    relative_paths = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean(self) -> dict:
        data = super().clean()
        chosen = IMPORT_FORMATS.get(data.get("format", ""))
        for parameter in chosen.parameters if chosen else ():
            if parameter.required and data.get(parameter.name) in (None, ""):
                self.add_error(parameter.name, f"{chosen.label} needs this.")
        return data

    def parameters(self, chosen: ImportFormat) -> dict[str, object]:
        """The chosen format's extra arguments, with defaults for the ones left empty."""
        values = {}
        for parameter in chosen.parameters:
            value = self.cleaned_data.get(parameter.name)
            values[parameter.name] = parameter.default if value in (None, "") else value
        return values


class UploadView(ResearcherRequiredMixin, View):
    template_name = "crux_app/upload.html"
    streams_uploads = True  # RequestBodyLimitMiddleware: bodies up to UPLOAD_MAX_BYTES

    def get(self, request: HttpRequest) -> HttpResponse:
        return self._render(request, UploadForm())

    def post(self, request: HttpRequest) -> HttpResponse:
        form = UploadForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        chosen = IMPORT_FORMATS[form.cleaned_data["format"]]
        try:
            stored = store_upload(request, chosen.source, form.cleaned_data["relative_paths"])
        except UploadRejected as failure:
            form.add_error(None, str(failure))
            return self._render(request, form, status=failure.status)
        config = ImportJobParams(
            format=chosen.name,
            collection=form.cleaned_data["collection"],
            source=stored.source,
            label=stored.label,
            options=form.parameters(chosen),
        )
        job = start_import_job(config, user=request.user)
        files = "1 file" if stored.files == 1 else f"{stored.files} files"
        messages.success(request, f"Uploaded {files}; job #{job.pk} imports them.")
        return redirect("job-detail", pk=job.pk)

    def _render(self, request, form: UploadForm, status: int = 200) -> HttpResponse:
        context = {
            "form": form,
            "formats": upload_formats(),
            "collections": Collection.objects.values_list("name", flat=True),
        }
        return render(request, self.template_name, context, status=status)


def store_upload(request: HttpRequest, source: str, relative_paths: str) -> StoredUpload:
    """Store the request's file (field ``file``) or folder (``folder`` + its relative paths)."""
    if source == "folder":
        return store_folder(request.FILES.getlist("folder"), relative_paths)
    return store_file(request.FILES.get("file"))


urlpatterns = [path("upload/", UploadView.as_view(), name="upload")]


class RequestBodyLimitMiddleware:
    """413 for a request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``, by its Content-Length, unless
    a researcher sends it to an upload view (``streams_uploads``): there the limit is
    ``UPLOAD_MAX_BYTES`` plus the form fields' allowance. Listed before ``CsrfViewMiddleware``:
    its ``process_view`` runs first, so an oversized body is refused before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is None or length <= limit:
            return None
        view_class = getattr(view_func, "view_class", None)
        if getattr(view_class, "streams_uploads", False) and _uploader_is_researcher(
            request, view_class
        ):
            # The files may hold UPLOAD_MAX_BYTES; the multipart framing and form fields fit
            # in the form allowance. The stored files' sizes are checked again exactly.
            uploads = settings.UPLOAD_MAX_BYTES
            if length <= uploads + limit:
                return None
            return HttpResponse(
                f"Upload too large: {length:,} bytes sent; at most {uploads:,} bytes of files "
                "may be uploaded at once (UPLOAD_MAX_BYTES). Import a larger release with the "
                "import commands.",
                status=413,
                content_type="text/plain; charset=utf-8",
            )
        return HttpResponse(
            f"Request body too large: at most {limit} bytes.",
            status=413,
            content_type="text/plain; charset=utf-8",
        )


def _uploader_is_researcher(request: HttpRequest, view_class: type) -> bool:
    """Whether a researcher sends the upload: the session's account, or the one a view that
    authenticates by itself (an API token, ``may_stream_uploads``) finds."""
    if is_researcher(request.user):
        return True
    may_stream = getattr(view_class, "may_stream_uploads", None)
    return bool(may_stream and may_stream(request))
