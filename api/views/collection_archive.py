"""A collection's archive as a job: ``POST /api/v1/collections/<name>/archive/`` (202 with the
job, whose ``download`` names the file once written) and the collection page's "Export as
archive" button (POST, then the job's page, which links the download)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views import View
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.collection_archive_job import start_collection_archive
from api.serializers import ErrorSerializer, JobEnvelopeSerializer, JobSerializer
from crux_app.access import collection_or_404
from crux_app.roles import ResearcherRequiredMixin


class ArchiveStartSerializer(serializers.Serializer):
    with_accounts = serializers.BooleanField(
        default=False, help_text="name users by their user names (default: stable pseudonyms)"
    )


class CollectionArchiveView(APIView):
    @extend_schema(
        request=ArchiveStartSerializer,
        responses={202: JobEnvelopeSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request, name: str) -> Response:
        """Start the job that writes the collection's archive (``export_collection``) on the
        ``cpu`` queue; ``GET /api/v1/jobs/<id>/`` names its ``download`` once written."""
        collection = collection_or_404(request, name=name)  # an export: a read
        body = ArchiveStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        job = start_collection_archive(
            collection, request.user, with_accounts=body.validated_data["with_accounts"]
        )
        return Response({"job": JobSerializer(job).data}, status=status.HTTP_202_ACCEPTED)


class CollectionArchivePageView(ResearcherRequiredMixin, View):
    """POST from the collection page: start the archive job, then show the job's page."""

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk)  # an export: a read
        job = start_collection_archive(collection, request.user)
        messages.success(
            request,
            f"Started the archive of {collection.name}; its download appears here when written.",
        )
        return redirect("job-detail", pk=job.pk)
