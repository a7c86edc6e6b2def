"""Jobs: start one of any registered kind on a collection, read, list, cancel, retry."""

from __future__ import annotations

from django import forms
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import FormRefused
from api.job_start import start_api_job
from api.paging import ApiPagination
from api.serializers import (
    ErrorSerializer,
    JobEnvelopeSerializer,
    JobSerializer,
    JobStartSerializer,
)
from crux_app.access import collection_or_404, job_or_404
from crux_app.jobs.service import JobNotCancellable, JobNotRetryable, cancel_job, retry_job
from crux_app.models import Job


class JobFilterForm(forms.Form):
    kind = forms.CharField(max_length=64, required=False)
    state = forms.ChoiceField(choices=[("", "any")] + Job.State.choices, required=False)
    collection = forms.CharField(max_length=200, required=False)


def _job(request: Request, pk: int, *, write: bool = False) -> Job:
    """The job if the caller may see it (404), and with ``write`` change it (403)."""
    return job_or_404(request, pk, write=write, jobs=Job.objects.select_related("collection"))


class JobListView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("kind", str),
            OpenApiParameter("state", str, enum=[s for s, _ in Job.State.choices]),
            OpenApiParameter("collection", str, description="the collection's name"),
        ],
        responses=JobSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        """Jobs, newest first, filtered by kind, state and collection."""
        filters = JobFilterForm(request.query_params)
        if not filters.is_valid():
            raise FormRefused(filters.errors)
        jobs = Job.objects.visible_to(request).select_related("collection").order_by("-id")
        data = filters.cleaned_data
        if data["kind"]:
            jobs = jobs.filter(kind=data["kind"])
        if data["state"]:
            jobs = jobs.filter(state=data["state"])
        if data["collection"]:
            jobs = jobs.filter(collection__name=data["collection"])
        paging = ApiPagination()
        page = paging.paginate_queryset(jobs, request, self)
        return paging.get_paginated_response(JobSerializer(page, many=True).data)


class CollectionJobStartView(APIView):
    @extend_schema(
        request=JobStartSerializer,
        responses={202: JobEnvelopeSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request, name: str) -> Response:
        """Start a job of ``kind`` on the collection; ``params`` are the kind's declared
        parameters (types, bounds, choices, defaults; absent: the default), ``run`` a run's name
        or id, ``topic`` a topic id where the kind takes one."""
        collection = collection_or_404(request, name=name, write=True)
        body = JobStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        job = start_api_job(
            body.validated_data["kind"], body.validated_data["params"], collection, request.user
        )
        return Response({"job": JobSerializer(job).data}, status=status.HTTP_202_ACCEPTED)


class JobDetailView(APIView):
    @extend_schema(responses=JobSerializer)
    def get(self, request: Request, pk: int) -> Response:
        """One job: its state (pending, running, succeeded, failed, cancelled) and progress;
        an export job's ``download`` (URL, name, rows, size, expiry) once its file is written."""
        return Response(JobSerializer(_job(request, pk), context={"request": request}).data)


class JobCancelView(APIView):
    @extend_schema(request=None, responses={200: JobSerializer, 409: ErrorSerializer})
    def post(self, request: Request, pk: int) -> Response:
        """Cancel a pending job at once, a running one before its next batch."""
        try:
            job = cancel_job(_job(request, pk, write=True))
        except JobNotCancellable as refused:
            return Response({"detail": str(refused)}, status=status.HTTP_409_CONFLICT)
        return Response(JobSerializer(job).data)


class JobRetryView(APIView):
    @extend_schema(request=None, responses={202: JobSerializer, 409: ErrorSerializer})
    def post(self, request: Request, pk: int) -> Response:
        """Send a finished job again (only missing items are done)."""
        try:
            job = retry_job(_job(request, pk, write=True))
        except JobNotRetryable as refused:
            return Response({"detail": str(refused)}, status=status.HTTP_409_CONFLICT)
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)
