"""Review campaigns through the REST API (mounted by ``api.registry``): list and make them for a
collection (the new review campaign form's fields and bounds), read one with its progress and
its items, and decide an item (the workspace's service: one decision per item, the first
stands).

Researchers reach the review campaigns of their workspaces' collections (a viewer reads
them); an account given review campaigns (the ``reviewer``
role) reads only those (404 for the others, as the workspace) and decides their items, blind
unless the campaign shows sources; any other account gets 403.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.labels.collection import UnknownJudges
from annotation.models import ReviewCampaign, ReviewDecision, ReviewItem
from annotation.review.access import REVIEWER, add_reviewer, can_review, given_or_visible
from annotation.review.api_forms import (
    CAMPAIGN_SCHEMA,
    DECISION_SCHEMA,
    ReviewCampaignApiForm,
    body_data,
)
from annotation.review.campaigns import OPTION_LETTERS, EmptyQueue, create_review_campaign
from annotation.review.decisions import DecisionError, chosen_label, decide, progress
from annotation.review.display import label_text
from annotation.review.forms import DecisionForm
from api.errors import FormRefused, field_error
from api.paging import ApiPagination
from api.permissions import IsResearcher, ReadOnly
from crux_app.access import collection_or_404
from crux_app.roles import has_role

JSON = OpenApiTypes.OBJECT
DECIDED = OpenApiParameter(
    "decided", bool, description="true: decided items only; false: the items left to decide"
)


class IsReviewer(BasePermission):
    """Accounts given a review campaign (the ``reviewer`` role); each view narrows the rows to
    the campaigns given to the account."""

    message = "This endpoint is for researchers and reviewers."

    def has_permission(self, request: Request, view: object) -> bool:
        return bool(request.user and has_role(request.user, REVIEWER))


def campaigns_for(request: Request) -> QuerySet[ReviewCampaign]:
    """The review campaigns of the caller's workspaces, and those given to the account."""
    return given_or_visible(request).select_related("collection", "judge")


def campaign_for(request: Request, slug: str) -> ReviewCampaign:
    return get_object_or_404(campaigns_for(request), slug=slug.replace("\x00", ""))


def researcher_of(request: Request, campaign: ReviewCampaign) -> bool:
    """Whether the caller sees ``campaign`` as a researcher of its workspace (its queue record,
    its reviewers, the judges' labels); a reviewer given it sees the blind review."""
    return ReviewCampaign.objects.visible_to(request).filter(pk=campaign.pk).exists()


def campaign_data(campaign: ReviewCampaign, researcher: bool) -> dict[str, Any]:
    """A review campaign as the API shows it; its queue record (which judges, their kinds)
    and its reviewers to researchers only: blind review names no judge."""
    out: dict[str, Any] = {
        "name": campaign.name,
        "slug": campaign.slug,
        "collection": campaign.collection.name,
        "task_type": campaign.task_type,
        "kind": campaign.kind,
        "sampling": campaign.sampling,
        "show_sources": campaign.show_sources,
        "state": campaign.state,
        "guidelines_md": campaign.guidelines_md,
        "n_disagreements": campaign.n_disagreements,
        "progress": progress(campaign),
        "workspace": reverse("review-workspace", args=[campaign.slug]),
    }
    if researcher:
        out.update(
            adjudicated_judge=campaign.judge.name if campaign.judge else None,
            selection=campaign.selection,
            reviewers=list(
                campaign.reviewers.order_by("username").values_list("username", flat=True)
            ),
            created_at=campaign.created_at,
        )
    return out


def decision_data(decision: ReviewDecision) -> dict[str, Any]:
    return {
        "item": decision.item_id,
        "label": decision.label,
        "option": decision.option,
        "note": decision.note,
        "reviewer": decision.reviewer.get_username(),
        "time_spent_ms": decision.time_spent_ms,
        "decided_at": decision.decided_at,
    }


def item_data(campaign: ReviewCampaign, item: ReviewItem, researcher: bool) -> dict[str, Any]:
    """An item as the workspace shows it: the payload and the options A, B, C (the judges of
    each only when the campaign shows sources); the judges' labels and the decision to
    researchers."""
    decision = getattr(item, "decision", None)
    out: dict[str, Any] = {
        "id": item.pk,
        "position": item.position,
        "key": item.key,
        "gap": item.gap,
        "inclusion": item.inclusion,
        "payload": item.payload,
        "options": [
            {
                "option": OPTION_LETTERS[i],
                "label": c["label"],
                "text": label_text(campaign.task_type, c["label"]),
                "rationales": c.get("rationales", []),
                **({"judges": c["judges"]} if campaign.show_sources else {}),
            }
            for i, c in enumerate(item.candidates)
        ],
        "decided": decision is not None,
    }
    if researcher:
        out["labels"] = item.labels
        out["decision"] = decision_data(decision) if decision is not None else None
    return out


class ReviewApiView(APIView):
    permission_classes = [IsResearcher | IsReviewer]


class MyReviewCampaignsView(ReviewApiView):
    @extend_schema(operation_id="review_campaigns_list", responses=JSON)
    def get(self, request: Request) -> Response:
        """The review campaigns the account may review (a researcher: every one)."""
        rows = campaigns_for(request).order_by("name")
        seen = set(ReviewCampaign.objects.visible_to(request).values_list("pk", flat=True))
        return Response([campaign_data(c, c.pk in seen) for c in rows])


class CollectionReviewCampaignsView(APIView):
    permission_classes = [IsResearcher | (IsReviewer & ReadOnly)]

    @extend_schema(operation_id="collection_review_campaigns_list", responses=JSON)
    def get(self, request: Request, name: str) -> Response:
        """The collection's review campaigns the account may review; a reviewer given none of
        them gets the 404 of a collection that does not exist (it may not learn which exist)."""
        found = campaigns_for(request).filter(collection__name=name.replace("\x00", ""))
        rows = list(found.order_by("name"))
        if not rows:
            collection_or_404(request, name=name)  # 404 unless the caller sees the collection
        seen = set(ReviewCampaign.objects.visible_to(request).values_list("pk", flat=True))
        return Response([campaign_data(c, c.pk in seen) for c in rows])

    @extend_schema(request={"application/json": CAMPAIGN_SCHEMA}, responses={201: JSON})
    def post(self, request: Request, name: str) -> Response:
        """A review campaign of the collection's disagreement queue (the choices of the new
        review campaign page and of ``manage.py review_campaign``); ``reviewers`` are existing
        accounts given the campaign."""
        collection = collection_or_404(request, name=name, write=True)
        data = body_data(request.data)
        data["collection"] = str(collection.pk)
        form = ReviewCampaignApiForm(data, who=request)
        if not form.is_valid():
            raise FormRefused(form.errors)
        try:
            with transaction.atomic():
                campaign = create_review_campaign(
                    collection,
                    form.cleaned_data["name"],
                    form.choice(),
                    show_sources=form.cleaned_data["show_sources"],
                    guidelines_md=form.cleaned_data["guidelines_md"],
                    created_by=request.user,
                )
                for username in form.cleaned_data["reviewers"]:
                    add_reviewer(campaign, username)
        except UnknownJudges as error:
            raise field_error("judges", str(error)) from None
        except LookupError as error:
            raise field_error("reviewers", str(error)) from None
        except (EmptyQueue, ValueError) as error:
            raise field_error("__all__", str(error)) from None
        return Response(campaign_data(campaign, True), status=status.HTTP_201_CREATED)


class ReviewCampaignDetailView(ReviewApiView):
    @extend_schema(responses=JSON)
    def get(self, request: Request, slug: str) -> Response:
        """A review campaign with its progress (decided of all items)."""
        campaign = campaign_for(request, slug)
        return Response(campaign_data(campaign, researcher_of(request, campaign)))


class ReviewItemsView(ReviewApiView):
    @extend_schema(parameters=[DECIDED], responses=JSON)
    def get(self, request: Request, slug: str) -> Response:
        """The campaign's items in review order, a page at a time."""
        campaign = campaign_for(request, slug)
        items = campaign.items.select_related("decision__reviewer").order_by("position", "id")
        decided = request.query_params.get("decided")
        if decided is not None:
            if decided not in ("true", "false"):
                raise field_error("decided", "decided must be true or false")
            items = items.filter(decision__isnull=decided == "false")
        researcher = researcher_of(request, campaign)
        paging = ApiPagination()
        page = paging.paginate_queryset(items, request, self)
        return paging.get_paginated_response([item_data(campaign, i, researcher) for i in page])


class ReviewDecisionView(ReviewApiView):
    @extend_schema(request={"application/json": DECISION_SCHEMA}, responses={201: JSON, 200: JSON})
    def post(self, request: Request, slug: str, pk: int) -> Response:
        """Decide an item: ``option`` (a letter of its options) or ``other`` (another label),
        with a ``note``. 201 when stored; 200 with the stored decision when this account had
        decided the item; 409 when another reviewer had (the first decision stands)."""
        campaign = campaign_for(request, slug)
        if not can_review(campaign, request, decide=True):
            raise PermissionDenied("You may only read this review campaign.")
        item = get_object_or_404(
            ReviewItem.objects.select_related("campaign"), pk=pk, campaign=campaign
        )
        form = DecisionForm(body_data(request.data))
        if not form.is_valid():
            raise FormRefused(form.errors)
        if not campaign.is_open:
            raise field_error("__all__", "the review campaign is closed")
        data = form.cleaned_data
        try:
            label, letter = chosen_label(item, data["option"], data["other"])
        except DecisionError as error:
            field = "other" if data["other"] and not data["option"] else "option"
            raise field_error(field, str(error)) from None
        result = decide(item, request.user, label, letter, data["note"], data["time_spent_ms"])
        body = {"stored": result.stored, "decision": decision_data(result.decision)}
        if result.stored:
            return Response(body, status=status.HTTP_201_CREATED)
        if result.decision.reviewer_id == request.user.pk:
            return Response(body)
        body["detail"] = "another reviewer decided this item; the first decision stands"
        return Response(body, status=status.HTTP_409_CONFLICT)


def register_api() -> None:
    """Mount the review endpoints under /api/v1/ (from ``AnnotationConfig.ready``)."""
    from annotation.review.api_results import register_api as register_results
    from api.registry import register_endpoint

    register_endpoint("review-campaigns", "review-campaigns/", MyReviewCampaignsView)
    register_endpoint(
        "collection-review-campaigns",
        "collections/<str:name>/review-campaigns/",
        CollectionReviewCampaignsView,
    )
    register_endpoint("review-campaign", "review-campaigns/<slug:slug>/", ReviewCampaignDetailView)
    register_endpoint("review-items", "review-campaigns/<slug:slug>/items/", ReviewItemsView)
    register_endpoint(
        "review-decision",
        "review-campaigns/<slug:slug>/items/<int:pk>/decision/",
        ReviewDecisionView,
    )
    register_results()
