"""Collections: list, create, read with the collection page's counts."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import field_error
from api.paging import ApiPagination
from api.serializers import CollectionCreateSerializer, CollectionSerializer
from crux_app.access import collection_or_404
from crux_app.models import Collection
from crux_app.queries import counted
from crux_app.workspaces import WorkspaceRefused, workspace_for_new_collection


class CollectionListView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("q", str, description="part of the name or description")],
        responses=CollectionSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        """The collections, a page at a time, each with its counts."""
        from crux_app.views.collections import search_collections

        collections = Collection.objects.visible_to(request).order_by("name")
        text = (request.query_params.get("q") or "").replace("\x00", "")[:200]
        if text:
            collections = search_collections(collections, text)
        paging = ApiPagination()
        page = paging.paginate_queryset(collections, request, self)
        rows = [counted(c) for c in page]
        return paging.get_paginated_response(CollectionSerializer(rows, many=True).data)

    @extend_schema(request=CollectionCreateSerializer, responses={201: CollectionSerializer})
    def post(self, request: Request) -> Response:
        """Create an empty collection."""
        body = CollectionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fields = dict(body.validated_data)
        try:
            fields["workspace"] = workspace_for_new_collection(request, fields.get("workspace"))
        except WorkspaceRefused as refusal:
            raise field_error("workspace", str(refusal)) from None
        collection = Collection.objects.create(**fields)
        data = CollectionSerializer(counted(collection)).data
        return Response(data, status=status.HTTP_201_CREATED)


class CollectionDetailView(APIView):
    @extend_schema(responses=CollectionSerializer)
    def get(self, request: Request, name: str) -> Response:
        """One collection with its counts."""
        collection = collection_or_404(request, name=name)
        return Response(CollectionSerializer(counted(collection)).data)
