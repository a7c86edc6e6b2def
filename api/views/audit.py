"""``/api/v1/collections/<name>/audit/``: the collection's audit trail, newest first (JSON
pages; CSV with ``?format=csv``, every record), filtered by ``AuditFilter``'s parameters."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import field_error
from api.paging import ApiPagination
from api.tabular import TABULAR_RENDERERS, wants_csv
from crux_app.access import collection_or_404
from crux_app.audit.reading import AuditFilter, as_row
from crux_app.parameters import ParameterError

FILTERS = [OpenApiParameter(p.name, str, description=p.help) for p in AuditFilter.declared()]


class CollectionAuditView(APIView):
    renderer_classes = TABULAR_RENDERERS

    @extend_schema(
        parameters=[*FILTERS, OpenApiParameter("page", int), OpenApiParameter("page_size", int)],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, name: str) -> Response:
        """Who changed what in the collection, when and from where (old and new values)."""
        collection = collection_or_404(request, name=name)
        try:
            chosen = AuditFilter.from_query(request.query_params)
        except ParameterError as error:
            raise field_error(error.name or "query", str(error)) from None
        except ValueError as error:
            raise field_error("query", str(error)) from None
        events = chosen.events(collection.pk)
        if wants_csv(request):
            return Response([as_row(e) for e in events.iterator()])
        paging = ApiPagination()
        page = paging.paginate_queryset(events, request, self)
        return paging.get_paginated_response([as_row(e) for e in page])
