"""``Authorization: Bearer <token>`` with a personal API token."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from api.models import ApiToken
from api.tokens import find_active_token

SCHEME = "bearer"
MAX_TOKEN_CHARS = 200  # far above a real token; longer headers are refused unread


class BearerTokenAuthentication(BaseAuthentication):
    """A request with a Bearer token is that token's user's (401 for a wrong or revoked one);
    a request without one is left to the next authentication class."""

    def authenticate(self, request: Request) -> tuple[object, ApiToken] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != SCHEME:
            return None
        token = token.strip()
        if not token or len(token) > MAX_TOKEN_CHARS or " " in token:
            raise exceptions.AuthenticationFailed("Malformed Authorization header: Bearer <token>.")
        row = find_active_token(token)
        if row is None or not row.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        return row.user, row

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) to a request without credentials.
        return 'Bearer realm="api"'
