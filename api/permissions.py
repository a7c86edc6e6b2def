"""Who may call an endpoint: the same roles as the pages (``crux_app.roles``)."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from crux_app.roles import is_researcher


class IsResearcher(BasePermission):
    """Researcher endpoints: what a researcher's pages show (403 for other accounts)."""

    message = "This endpoint is for researchers."

    def has_permission(self, request: Request, view: object) -> bool:
        return bool(request.user and request.user.is_authenticated and is_researcher(request.user))


class IsSignedIn(BasePermission):
    """Endpoints any account may call; the view narrows rows to the account's own."""

    def has_permission(self, request: Request, view: object) -> bool:
        return bool(request.user and request.user.is_authenticated)


class ReadOnly(BasePermission):
    """GET, HEAD and OPTIONS only: composed with a role (``IsResearcher | (IsX & ReadOnly)``)
    where the role may read an endpoint but not write through it."""

    def has_permission(self, request: Request, view: object) -> bool:
        return request.method in SAFE_METHODS
