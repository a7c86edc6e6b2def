"""``GET /api/v1/results/``: where each method's stored results are served as rows, and the
filters each takes (``api.registry.RESULT_TABLES``, declared by the methods), so the client's
``results(collection, method)`` follows the server and a new method needs no client change."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.registry import RESULT_TABLES

PLACEHOLDER = "COLLECTION"  # reversed in the route, then shown as {collection}
API_ROOT = "/api/v1/"


def table_path(endpoint: str) -> str:
    """The endpoint's path below ``/api/v1/``, the collection as ``{collection}``."""
    url = reverse(endpoint, kwargs={"name": PLACEHOLDER})
    return url.removeprefix(API_ROOT).replace(PLACEHOLDER, "{collection}")


class ResultTablesView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request) -> Response:
        """Each method's stored-results endpoint: ``{"methods": [{"method", "path" (below
        /api/v1/, with {collection}), "filters", "rows" (the JSON key of the rows;
        "results": pages)}]}``."""
        return Response(
            {
                "methods": [
                    {
                        "method": table.method,
                        "path": table_path(table.endpoint),
                        "filters": list(table.filters),
                        "rows": table.rows,
                    }
                    for table in RESULT_TABLES.values()
                ]
            }
        )
