"""Campaigns through the REST API (mounted by ``api.registry``): create a passage-rating
campaign from item keys, read its progress, export every label of every annotator in one call
(the campaign page's services)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.campaigns.from_items import create_campaign_from_items
from annotation.exports.exports import label_columns, label_rows
from annotation.models import Campaign
from annotation.models.access import visible_or_404
from annotation.quality.progress import campaign_progress
from annotation.queue.selection import SelectionError
from annotation.task_types.names import PASSAGE_RATING
from api.errors import field_error
from api.export_kinds import ExportRows
from api.streaming import streamed_csv, streamed_json
from api.tabular import TABULAR_RENDERERS, wants_csv
from crux_app.access import collection_or_404
from crux_app.models import Passage, SubQuestion

MAX_ITEMS_PER_CALL = 100_000


class ItemKeySerializer(serializers.Serializer):
    topic = serializers.CharField(max_length=200)
    position = serializers.IntegerField(min_value=0, max_value=100_000)
    passage = serializers.CharField(max_length=300)


class CampaignCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    collection = serializers.CharField(max_length=200)
    items = ItemKeySerializer(many=True, allow_empty=False, max_length=MAX_ITEMS_PER_CALL)
    overlap = serializers.IntegerField(min_value=1, max_value=50, default=1)
    attention_count = serializers.IntegerField(min_value=0, max_value=1000, default=0)
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)
    guidelines_md = serializers.CharField(required=False, allow_blank=True, max_length=100_000)
    annotators = serializers.ListField(
        child=serializers.CharField(max_length=150), required=False, max_length=1000
    )


def item_ids(collection_id: int, items: list[dict]) -> list[tuple[int, int, int]]:
    """(topic id, sub-question id, passage id) of each key; a 400 naming ``items[i]`` for a
    key that is not in the collection."""
    questions = {
        (topic, position): (topic_id, sq_id)
        for topic, position, topic_id, sq_id in SubQuestion.objects.filter(
            topic__collection_id=collection_id
        ).values_list("topic__external_id", "position", "topic_id", "id")
    }
    wanted = {item["passage"] for item in items}
    passages = dict(
        Passage.objects.filter(collection_id=collection_id, external_id__in=wanted).values_list(
            "external_id", "id"
        )
    )
    keys = []
    for i, item in enumerate(items):
        question = questions.get((item["topic"], item["position"]))
        if question is None:
            raise field_error(
                f"items[{i}]", f"no sub-question {item['position']} of topic {item['topic']!r}"
            )
        if item["passage"] not in passages:
            raise field_error(f"items[{i}]", f"no passage {item['passage']!r} in the collection")
        keys.append((*question, passages[item["passage"]]))
    return keys


def invited_accounts(usernames: list[str]) -> list:
    """The accounts invited to the campaign; a 400 naming ``annotators`` for an unknown one."""
    found = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
    missing = [name for name in usernames if name not in found]
    if missing:
        raise field_error("annotators", f"no account named {missing[0]!r}")
    return [found[name] for name in usernames]


def progress_data(campaign: Campaign) -> dict:
    progress = campaign_progress(campaign)
    return {
        "name": campaign.name,
        "slug": campaign.slug,
        "collection": campaign.collection.name,
        "task_type": campaign.task_type,
        "state": campaign.state,
        "overlap": campaign.overlap,
        "summary": progress.summary,
        "controls": progress.n_controls,
        "median_ms": progress.median_ms,
        "flagged": progress.flagged,
        "overlap_warning": progress.overlap_warning,
        "annotators": [
            {
                "username": a.username,
                "submitted": a.submitted,
                "controls": a.controls,
                "live": a.live,
                "skipped": a.skipped,
                "median_ms": a.median_ms,
                "flagged": a.quality.flagged,
                "speeding": a.speeding,
            }
            for a in progress.annotators
        ],
    }


def _campaigns() -> QuerySet[Campaign]:
    return Campaign.objects.select_related("collection")


class CampaignListView(APIView):
    @extend_schema(operation_id="campaigns_list", responses=OpenApiTypes.OBJECT)
    def get(self, request: Request) -> Response:
        """Every campaign of the collections the caller may see (name, slug, collection, task
        type, state)."""
        rows = _campaigns().visible_to(request).order_by("-created_at")
        return Response(
            [
                {
                    "name": c.name,
                    "slug": c.slug,
                    "collection": c.collection.name,
                    "task_type": c.task_type,
                    "state": c.state,
                }
                for c in rows
            ]
        )

    @extend_schema(request=CampaignCreateSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        """A passage-rating campaign over exactly these (topic, sub-question position, passage)
        items, in this order."""
        body = CampaignCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        collection = collection_or_404(request, name=data["collection"], write=True)
        if Campaign.objects.filter(name=data["name"]).exists():
            raise field_error("name", f"a campaign named {data['name']!r} exists")
        keys = item_ids(collection.pk, data["items"])
        invited = invited_accounts(data.get("annotators", []))
        campaign = Campaign(
            name=data["name"],
            collection=collection,
            task_type=PASSAGE_RATING,
            overlap=data["overlap"],
            guidelines_md=data.get("guidelines_md", ""),
            created_by=request.user,
        )
        try:
            create_campaign_from_items(
                campaign,
                keys,
                {"source": "api"},
                attention_count=data["attention_count"],
                seed=data["seed"],
                invited=invited,
            )
        except SelectionError as error:
            raise field_error(error.field, str(error)) from None
        return Response(progress_data(campaign), status=status.HTTP_201_CREATED)


class CampaignDetailView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, slug: str) -> Response:
        """The campaign page's progress: items done, annotators, quality flags."""
        return Response(progress_data(visible_or_404(request, _campaigns(), slug=slug)))


class CampaignLabelsView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, slug: str) -> StreamingHttpResponse:
        """Every submitted label of every annotator, streamed (the campaign page's CSV
        export's columns; JSON: ``{"campaign", "labels": [one object per label], "count"}``)."""
        campaign = visible_or_404(request, _campaigns(), slug=slug)
        # Streamed as the server-side cursor yields them: one chunk of rows in memory.
        rows = label_rows(campaign)
        if wants_csv(request):
            return streamed_csv(
                rows, label_columns(campaign.task_type), f"{campaign.slug}-labels.csv"
            )
        return streamed_json({"campaign": campaign.slug}, "labels", rows)


class CampaignExportForm(forms.Form):
    campaign = forms.SlugField(max_length=80)

    def clean_campaign(self) -> Campaign:
        found = _campaigns().filter(slug=self.cleaned_data["campaign"]).first()
        if found is None:
            raise forms.ValidationError(f"no campaign {self.cleaned_data['campaign']!r}")
        return found


def campaign_label_export(data: Mapping[str, Any]) -> ExportRows:
    """An asynchronous export of every label (``POST /api/v1/exports/``, kind
    ``campaign-labels``): the streamed export's rows, written to a file by a worker."""
    campaign = data["campaign"]
    columns = label_columns(campaign.task_type)
    return ExportRows(columns, label_rows(campaign), f"{campaign.slug}-labels")


def register_api() -> None:
    """Mount the campaign endpoints under /api/v1/ (from ``AnnotationConfig.ready``)."""
    from api.export_kinds import ExportKind, register_export
    from api.registry import register_endpoint

    register_export(
        ExportKind(
            "campaign-labels",
            "Every label of every annotator of a campaign",
            CampaignExportForm,
            campaign_label_export,
        )
    )

    register_endpoint("campaigns", "campaigns/", CampaignListView)
    register_endpoint("campaign", "campaigns/<slug:slug>/", CampaignDetailView)
    register_endpoint("campaign-labels", "campaigns/<slug:slug>/labels/", CampaignLabelsView)
