"""Every request acts as its user for the audit trail, and a download it answers is recorded
(placed after the authentication middleware)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from crux_app.cache_headers import is_download
from crux_app.client_address import client_address
from crux_app.models import Collection, Job

from .context import audit_context, user_fields
from .events import EXPORT_DOWNLOAD, record_event


class AuditContextMiddleware:
    """Every request acts as its logged-in user, from its path and address (placed after the
    authentication middleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        fields = {
            "origin": "api" if request.path.startswith("/api/") else "web",
            "path": request.path[:300],
            "method": request.method,
            "address": client_address(request),
            "request_id": getattr(request, "request_id", None),
            **user_fields(getattr(request, "user", None)),
        }
        with audit_context(**fields):
            response = self.get_response(request)
            if 200 <= response.status_code < 300 and is_download(response):
                record_event(
                    EXPORT_DOWNLOAD,
                    download_collection(request),
                    file=response.get("Content-Disposition", "")[:300],
                    view=getattr(request.resolver_match, "view_name", ""),
                )
            return response


def download_collection(request: HttpRequest) -> int | None:
    """The collection a download's URL names (its id, or its name in the API), if any."""
    match = request.resolver_match
    if match is None:
        return None
    kwargs, route = match.kwargs, match.route
    if "collection_pk" in kwargs:
        return kwargs["collection_pk"]
    if route.startswith("collections/<int:pk>"):
        return kwargs["pk"]
    if "collections/<str:name>" in route:
        return Collection.objects.filter(name=kwargs["name"]).values_list("pk", flat=True).first()
    if match.url_name == "api-export-download":  # an export job's file
        return Job.objects.filter(pk=kwargs["pk"]).values_list("collection_id", flat=True).first()
    return None
