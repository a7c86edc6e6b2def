"""An annotator's own work through the API: their campaigns, the next item (reserved as in the
workspace), their assignments, and submitting an answer with the workspace's fields. Any
account may call these; every lookup is narrowed to campaigns it was invited to and to its own
assignments (404 otherwise), as the workspace pages are."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.labels.post_editing import suggestion_for
from annotation.models import Assignment, Campaign
from annotation.queue import queue
from annotation.task_types.answers import AnswerError, parse_answer
from annotation.workspace.forms import SubmitTiming
from annotation.workspace.submission import submit
from api.errors import FormRefused, field_error
from api.job_start import form_data
from api.permissions import IsSignedIn


def _campaign(request: Request, slug: str) -> Campaign:
    return get_object_or_404(Campaign.objects.for_annotator(request.user), slug=slug)


def assignment_data(assignment: Assignment) -> dict[str, Any]:
    return {
        "id": assignment.pk,
        "state": assignment.state,
        "item": assignment.item_id,
        "payload": assignment.item.payload,
        "answer": assignment.answer,
        "submitted_at": assignment.submitted_at,
        # Post-editing campaigns: the judge's answer the item opens with, and whether it was
        # kept (both null in a blind campaign).
        "suggestion": assignment.suggestion,
        "kept_suggestion": assignment.kept_suggestion,
    }


class OwnView(APIView):
    permission_classes = [IsSignedIn]


class MyCampaignsView(OwnView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request) -> Response:
        """The campaigns the account may annotate."""
        rows = Campaign.objects.for_annotator(request.user).order_by("name")
        return Response([{"name": c.name, "slug": c.slug, "task_type": c.task_type} for c in rows])


class NextAssignmentView(OwnView):
    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, slug: str) -> Response:
        """Reserve the account's next item (its live reservation first); ``assignment`` is
        null with the ``reason`` when there is none."""
        campaign = _campaign(request, slug)
        result = queue.next_item(campaign, request.user)
        if result.assignment is None:
            return Response({"assignment": None, "reason": result.reason})
        suggestion_for(campaign, result.assignment)  # kept on the assignment, as shown
        return Response({"assignment": assignment_data(result.assignment), "reason": ""})


class MyAssignmentsView(OwnView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, slug: str) -> Response:
        """The account's own assignments in the campaign, newest first."""
        rows = (
            Assignment.objects.filter(campaign=_campaign(request, slug), annotator=request.user)
            .select_related("item")
            .order_by("-id")
        )
        return Response([assignment_data(a) for a in rows])


class SubmitAssignmentView(OwnView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, slug: str, pk: int) -> Response:
        """Submit the answer with the workspace form's fields (e.g. ``rating``, ``rationale``,
        ``time_spent_ms`` for passage rating); stored once."""
        campaign = _campaign(request, slug)
        assignment = get_object_or_404(
            Assignment.objects.select_related("item"),
            pk=pk,
            campaign=campaign,
            annotator=request.user,
        )
        if not hasattr(request.data, "getlist"):  # a JSON object: the same fields
            if not isinstance(request.data, dict):
                raise field_error("__all__", "the body must be an object of the form's fields")
            data = form_data(request.data)
        else:
            data = request.data
        timing = SubmitTiming(data)
        if not timing.is_valid():
            raise FormRefused(timing.errors)
        try:
            answer = parse_answer(campaign.task_type, data, assignment.item.payload)
        except AnswerError as error:
            raise field_error("answer", str(error)) from None
        result = submit(assignment, answer, timing.cleaned_data["time_spent_ms"])
        assignment.refresh_from_db()
        code = status.HTTP_201_CREATED if result.stored else status.HTTP_200_OK
        return Response({"stored": result.stored, **assignment_data(assignment)}, status=code)


def register_api() -> None:
    """Mount the annotator's endpoints under /api/v1/ (from ``AnnotationConfig.ready``)."""
    from api.registry import register_endpoint

    register_endpoint("my-campaigns", "annotate/", MyCampaignsView)
    register_endpoint("next-assignment", "annotate/<slug:slug>/next/", NextAssignmentView)
    register_endpoint("my-assignments", "annotate/<slug:slug>/assignments/", MyAssignmentsView)
    register_endpoint(
        "submit-assignment",
        "annotate/<slug:slug>/assignments/<int:pk>/submit/",
        SubmitAssignmentView,
    )
