"""``Authorization: Bearer <token>`` with a personal API token."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

from api.models import ApiToken
from api.tokens import find_active_token
from crux_app.audit.context import bind_user
from crux_app.roles import API_TOKEN_HOLDERS, may_hold_api_token

SCHEME = "bearer"
READ_ONLY_REFUSAL = "This API token is read-only: it may only read (GET, HEAD, OPTIONS)."
MAX_TOKEN_CHARS = 200  # far above a real token; longer headers are refused unread


class BearerTokenAuthentication(BaseAuthentication):
    """A request with a Bearer token is that token's user's (401 for a wrong, revoked or expired
    one, or one whose account may no longer hold tokens; 403 for a write with a read-only one);
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
            raise exceptions.AuthenticationFailed("Invalid, revoked or expired API token.")
        # Checked on every request: an account that lost its role loses its tokens with it.
        if not may_hold_api_token(row.user):
            raise exceptions.AuthenticationFailed(f"API tokens are for {API_TOKEN_HOLDERS} only.")
        bind_user(row.user, token=row.pk)  # the audit trail names the token's user
        # The one place a read-only token's writes are refused, before any view runs.
        if row.read_only and request.method not in SAFE_METHODS:
            raise exceptions.PermissionDenied(READ_ONLY_REFUSAL)
        return row.user, row

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) to a request without credentials.
        return 'Bearer realm="api"'
