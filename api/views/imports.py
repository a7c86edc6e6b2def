"""``POST /api/v1/collections/<name>/imports/``: the upload page's job path, as an API call."""

from __future__ import annotations

from django.http import HttpRequest
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused, field_error
from api.parsers import SafeFormParser, SafeMultiPartParser
from api.serializers import ErrorSerializer, ImportSerializer, JobEnvelopeSerializer, JobSerializer
from api.tokens import find_active_token
from crux_app.access import import_target
from crux_app.dataio.catalog import IMPORT_FORMATS, ImportFormat
from crux_app.dataio.imports.job import ImportJobParams, start_import_job
from crux_app.dataio.uploads import UploadRejected
from crux_app.roles import is_researcher
from crux_app.views.upload import UploadForm, store_upload
from crux_app.workspaces import WorkspaceRefused, workspace_for_new_collection


class ApiImportForm(UploadForm):
    """The upload page's form with every format of the import catalog, and so with every
    format's declared parameters (``crux_app.dataio.catalog``), not only the uploadable ones."""

    @staticmethod
    def formats() -> list[ImportFormat]:
        return list(IMPORT_FORMATS.values())


class CollectionImportView(APIView):
    parser_classes = [SafeMultiPartParser, SafeFormParser]
    streams_uploads = True  # RequestBodyLimitMiddleware: bodies up to UPLOAD_MAX_BYTES

    @staticmethod
    def may_stream_uploads(request: HttpRequest) -> bool:
        """For RequestBodyLimitMiddleware, which runs before DRF authenticates: whether the
        request's bearer token is a researcher's."""
        scheme, _, token = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return False
        row = find_active_token(token.strip())
        return row is not None and row.user.is_active and is_researcher(row.user)

    @extend_schema(
        request={"multipart/form-data": ImportSerializer},
        responses={202: JobEnvelopeSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request, name: str) -> Response:
        """Store the file (or folder: ``folder`` files + ``relative_paths``) and start an
        ``import`` job; a bad file fails the job with the importer's FILE:LINE message."""
        # 404 unseen, 403 read only: before the body is stored
        existing = import_target(request, name)
        data = request.POST.copy()  # the fields only (request.data holds the files too)
        data["collection"] = name
        form = ApiImportForm(data)
        if not form.is_valid():
            raise FormRefused(form.errors)
        workspace = None
        if existing is None:  # the import makes the collection: in which workspace
            try:
                workspace = workspace_for_new_collection(request, form.cleaned_data["workspace"])
            except WorkspaceRefused as refusal:
                raise field_error("workspace", str(refusal)) from None
        chosen = IMPORT_FORMATS[form.cleaned_data["format"]]
        if chosen.source == "file" and "file" not in request.FILES:
            raise field_error("file", f"{chosen.label} needs a file in the field 'file'.")
        try:
            stored = store_upload(request, chosen.source, form.cleaned_data["relative_paths"])
        except UploadRejected as failure:
            field = "file" if chosen.source == "file" else "folder"
            return Response(
                {"detail": str(failure), "errors": {field: [str(failure)]}}, status=failure.status
            )
        config = ImportJobParams(
            format=chosen.name,
            collection=name,
            source=stored.source,
            label=stored.label,
            options=form.parameters(chosen),
            workspace=workspace.name if workspace else "",
        )
        job = start_import_job(config, user=request.user)
        return Response({"job": JobSerializer(job).data}, status=status.HTTP_202_ACCEPTED)
