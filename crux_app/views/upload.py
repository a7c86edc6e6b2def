"""Upload page: researchers import files and folders from the browser, as a job.

The page validates the form, stores the upload under ``settings.UPLOAD_DIR`` (one uuid folder
per upload) and starts an ``import`` job on the ``cpu`` queue, then shows the job's page: a
large release takes longer than a web request may. The worker runs the same importers as the
commands (``crux_app.dataio.imports.job``). Folder formats come from ``<input type=file
webkitdirectory>``: the browser's relative paths travel in a hidden field (Django keeps only
base names) and the files are stored with those paths.

Request bodies: Django's default limits hold everywhere (2.5 MB of form fields, larger files
spooled to disk by the upload handlers). ``RequestBodyLimitMiddleware`` (``crux_app.body_limit``)
also refuses, before the CSRF check parses it, any body larger than
``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413), except one sent by a researcher to an upload view (this
page, a failed import's replacement upload): its files stream to disk through the upload
handlers, up to ``UPLOAD_MAX_BYTES`` (413 above it, by the body's length before it is read, and
by the files' sizes before they are stored).
"""

from dataclasses import replace

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views import View

from crux_app.access import import_target, workspaces_of
from crux_app.collection_names import validate_collection_name
from crux_app.dataio.catalog import IMPORT_FORMATS, ImportFormat, upload_formats
from crux_app.dataio.imports.job import ImportJobParams, start_import_job
from crux_app.dataio.uploads import StoredUpload, UploadRejected, store_file, store_folder
from crux_app.models import Collection
from crux_app.roles import ResearcherRequiredMixin
from crux_app.workspaces import WorkspaceRefused, workspace_for_new_collection


def parameter_fields(formats: list[ImportFormat]) -> dict[str, forms.Field]:
    """A field per declared parameter of the formats (the first declaration of a name wins),
    blank allowed: which are required depends on the chosen format (``UploadForm.clean``)."""
    fields: dict[str, forms.Field] = {}
    for chosen in formats:
        for parameter in chosen.parameters:
            if parameter.name in fields:
                continue
            field = replace(parameter, required=False, initial=None).form_field()
            if isinstance(field, forms.ChoiceField):
                field.choices = [("", "—"), *field.choices]
            fields[parameter.name] = field
    return fields


class UploadForm(forms.Form):
    """The format, the collection, then every upload format's declared parameters."""

    format = forms.ChoiceField(choices=[(f.name, f.label) for f in upload_formats()])
    collection = forms.CharField(
        max_length=200,
        validators=[validate_collection_name],
        help_text="an existing collection or a new one",
    )
    # A new collection's workspace (``crux_app.workspaces.workspace_for_new_collection``):
    # empty is the only one the user may add collections to.
    workspace = forms.CharField(
        required=False, max_length=200, help_text="where a new collection goes"
    )
    relative_paths = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["format"].choices = [(f.name, f.label) for f in self.formats()]
        self.fields.update(parameter_fields(self.formats()))

    @staticmethod
    def formats() -> list[ImportFormat]:
        """The formats offered (read when a form is made, not at import: a method may add
        formats to the catalog when it is ready)."""
        return upload_formats()

    def parameter_fields(self) -> list[forms.BoundField]:
        """The declared parameters' fields, for the page to show the chosen format's."""
        names = {p.name for f in self.formats() for p in f.parameters}
        return [self[name] for name in self.fields if name in names]

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
        # 404 unseen, 403 read only
        existing = import_target(request, form.cleaned_data["collection"])
        workspace = ""
        if existing is None:  # the import makes the collection: in which workspace
            try:
                chosen_workspace = form.cleaned_data["workspace"]
                workspace = workspace_for_new_collection(request, chosen_workspace).name
            except WorkspaceRefused as refusal:
                form.add_error("workspace", str(refusal))
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
            workspace=workspace,
        )
        job = start_import_job(config, user=request.user)
        files = "1 file" if stored.files == 1 else f"{stored.files} files"
        messages.success(request, f"Uploaded {files}; job #{job.pk} imports them.")
        return redirect("job-detail", pk=job.pk)

    def _render(self, request, form: UploadForm, status: int = 200) -> HttpResponse:
        context = {
            "form": form,
            "formats": upload_formats(),
            # Those the user may import into (a new name makes a collection).
            "collections": Collection.objects.visible_to(request, write=True).values_list(
                "name", flat=True
            ),
            # Where a new collection may go (a choice only when there are several).
            "workspaces": list(
                workspaces_of(request, write=True).order_by("name").values_list("name", flat=True)
            ),
        }
        return render(request, self.template_name, context, status=status)


def store_upload(request: HttpRequest, source: str, relative_paths: str) -> StoredUpload:
    """Store the request's file (field ``file``) or folder (``folder`` + its relative paths)."""
    if source == "folder":
        return store_folder(request.FILES.getlist("folder"), relative_paths)
    return store_file(request.FILES.get("file"))


urlpatterns = [path("upload/", UploadView.as_view(), name="upload")]
