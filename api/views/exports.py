"""Asynchronous exports: ``POST /api/v1/exports/`` starts an export job (``{"kind", "params",
"format"}``, 202 with the job); ``GET /api/v1/jobs/<id>/`` names its ``download`` URL once it
succeeded; ``GET /api/v1/exports/<job id>/download/`` is the file, for the same accounts as
the API, until it expires (410 after)."""

from __future__ import annotations

from django.http import FileResponse, Http404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused
from api.export_job import FORMATS, ExportRefused, expire, export_dir, start_export
from api.models import ExportFile
from api.serializers import ErrorSerializer, JobEnvelopeSerializer, JobSerializer
from crux_app.models import Job


class ExportStartSerializer(serializers.Serializer):
    kind = serializers.CharField(max_length=64)
    params = serializers.DictField(
        child=serializers.CharField(max_length=300, allow_blank=True), required=False, default=dict
    )
    format = serializers.ChoiceField(choices=list(FORMATS), default="csv")


class ExportStartView(APIView):
    @extend_schema(
        request=ExportStartSerializer,
        responses={202: JobEnvelopeSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        """Start an export job on the ``cpu`` queue: ``kind`` ``campaign-labels`` (params
        ``campaign``), ``judgments`` (``collection``, ``judge``) or ``qrels``
        (``collection``, ``source``), as ``csv`` or ``json``."""
        body = ExportStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            job = start_export(data["kind"], data["params"], data["format"], request)
        except ExportRefused as refused:
            raise FormRefused(
                {name if name in ("kind", "format") else f"params.{name}": messages
                 for name, messages in refused.errors.items()}
            ) from None  # fmt: skip
        return Response({"job": JobSerializer(job).data}, status=status.HTTP_202_ACCEPTED)


class ExportDownloadView(APIView):
    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    def get(self, request: Request, pk: int) -> FileResponse | Response:
        """The export's file (404 before the job wrote it; 410 once it expired)."""
        # The export of a job the caller may see (the collection's, or their own), else 404.
        jobs = Job.objects.visible_to(request)
        export = ExportFile.objects.select_related("job").filter(job__in=jobs, job_id=pk).first()
        if export is None:
            raise Http404("No such export.")
        if export.expires_at <= timezone.now():
            expire(export)
            return Response(
                {"detail": "this export expired; start it again"}, status=status.HTTP_410_GONE
            )
        path = export_dir() / export.path
        if not path.is_file():
            return Response({"detail": "the export's file is gone"}, status=status.HTTP_410_GONE)
        response = FileResponse(path.open("rb"), as_attachment=True, filename=export.filename)
        response["Content-Type"] = export.content_type
        return response
