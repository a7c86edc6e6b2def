"""Review figures through the REST API, for researchers: the disagreement queue a review campaign
would hold (``manage.py review_queue --format json``'s JSON), the adjudicated judge merged from
review campaigns (``manage.py merge_adjudicated``) and the annotator quality table of a
campaign (the rows of its CSV). The "who was right" figures are the agreement app's
(``evaluation/agreement/verdict_api.py``)."""

from __future__ import annotations

from django import forms
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.labels.collection import UnknownJudges
from annotation.models import Campaign
from annotation.models.access import visible_or_404
from annotation.quality.annotators import COLUMNS, quality_frame, quality_rows
from annotation.quality.checks import speeding_floor_ms
from annotation.review.api_forms import (
    QUEUE_FIELDS,
    NameListField,
    ReviewQueueApiForm,
    body_data,
    form_schema,
)
from annotation.review.merge import MergeError, merge_adjudicated, mergeable_tasks
from annotation.review.selection import build_queue
from annotation.task_types.names import DEFAULT_TASK_TYPE
from api.errors import FormRefused, field_error
from api.tabular import TABULAR_RENDERERS, number, wants_csv
from crux_app.access import collection_or_404
from crux_app.csv_safety import safe_frame

JSON = OpenApiTypes.OBJECT
MAX_CAMPAIGNS = 1000


def _parameters(form_class: type[forms.Form], fields: tuple[str, ...]) -> list[OpenApiParameter]:
    """The query parameters of a form's fields, described from the form."""
    schema = form_schema(form_class, fields)["properties"]
    types = {"integer": int, "number": float, "boolean": bool, "array": str, "string": str}
    return [
        OpenApiParameter(
            name,
            types[schema[name]["type"]],
            description=schema[name].get("description", ""),
            enum=schema[name].get("enum"),
            many=schema[name]["type"] == "array",
        )
        for name in fields
    ]


class ReviewQueueView(APIView):
    @extend_schema(parameters=_parameters(ReviewQueueApiForm, QUEUE_FIELDS), responses=JSON)
    def get(self, request: Request, name: str) -> Response:
        """The items a review campaign made with these choices would hold:
        ``{"n_items", "items": [{"key", "labels": {judge: label}}]}`` (``judges`` and
        ``topics`` repeated, e.g. ``?judges=user:ann&judges=gpt``)."""
        collection = collection_or_404(request, name=name)
        form = ReviewQueueApiForm(body_data(request.query_params))
        if not form.is_valid():
            raise FormRefused(form.errors)
        try:
            items = build_queue(collection, form.choice()).items
        except UnknownJudges as error:
            raise field_error("judges", str(error)) from None
        except ValueError as error:
            raise field_error("__all__", str(error)) from None
        return Response(
            {"n_items": len(items), "items": [{"key": i.key, "labels": i.labels} for i in items]}
        )


class MergeForm(forms.Form):
    task = forms.ChoiceField(
        choices=lambda: [(t, t) for t in mergeable_tasks()],
        initial=DEFAULT_TASK_TYPE,
        required=False,
    )
    name = forms.CharField(max_length=200, help_text="The merged judge is adjudicated:merged:NAME.")
    campaigns = NameListField(
        max_names=MAX_CAMPAIGNS, help_text="Review campaign slugs (default: all of the task)."
    )


class ReviewMergeView(APIView):
    @extend_schema(
        request={"application/json": form_schema(MergeForm, tuple(MergeForm.base_fields))},
        responses=JSON,
    )
    def post(self, request: Request, name: str) -> Response:
        """Write the decisions of the collection's review campaigns of one task as the labels of
        one adjudicated judge, replacing its labels (where campaigns decided an item
        differently, the later decision counts)."""
        collection = collection_or_404(request, name=name, write=True)
        form = MergeForm(body_data(request.data))
        if not form.is_valid():
            raise FormRefused(form.errors)
        data = form.cleaned_data
        try:
            result = merge_adjudicated(
                collection, data["task"] or DEFAULT_TASK_TYPE, data["name"], data["campaigns"]
            )
        except MergeError as error:
            raise field_error("__all__", str(error)) from None
        return Response(
            {
                "judge": result.judge.name,
                "campaigns": result.campaigns,
                "n_labels": result.n_labels,
                "n_conflicts": result.n_conflicts,
            }
        )


class AnnotatorQualityApiView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(responses=JSON)
    def get(self, request: Request, slug: str) -> Response | HttpResponse:
        """Per annotator of a campaign, the annotator quality page's row (the columns of its
        CSV, with Prolific ids): JSON ``{"campaign", "columns", "annotators"}``; ``?format=csv``
        for the rows as CSV."""
        campaign = visible_or_404(request, Campaign.objects, slug=slug)
        if wants_csv(request):  # the page's CSV itself
            response = HttpResponse(content_type="text/csv; charset=utf-8")
            safe_frame(quality_frame(campaign)).to_csv(response, index=False, lineterminator="\n")
            return response
        floor = speeding_floor_ms(campaign.task_type)
        records = [
            {k: number(v) for k, v in r.as_record(floor).items()} for r in quality_rows(campaign)
        ]
        return Response(
            {"campaign": campaign.slug, "columns": list(COLUMNS), "annotators": records}
        )


def register_api() -> None:
    """Mount the endpoints (from ``annotation.review.api.register_api``)."""
    from api.registry import register_endpoint

    register_endpoint("review-queue", "collections/<str:name>/review-queue/", ReviewQueueView)
    register_endpoint("review-merges", "collections/<str:name>/review-merges/", ReviewMergeView)
    register_endpoint(
        "annotator-quality", "campaigns/<slug:slug>/annotator-quality/", AnnotatorQualityApiView
    )
