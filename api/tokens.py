"""Making, finding and revoking personal API tokens, and who may hold one."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from api.models import ApiToken
from crux_app.access import workspaces_of
from crux_app.models import Workspace
from crux_app.roles import API_TOKEN_HOLDERS, may_hold_api_token

TOKEN_PREFIX = "crux_"
SHOWN_CHARS = 12  # of the token, kept as its visible prefix
# last_used_at is written at most this often per token: one UPDATE per request would make
# every API call a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)
# A token's optional lifetime, in days (the page's field and the command's --expires-days).
MAX_EXPIRY_DAYS = 3650


class TokenRefused(PermissionError):
    """The account may not hold API tokens; the message says who may."""


def token_digest(token: str) -> str:
    """The stored form of a token. Tokens are 256 random bits, so a plain SHA-256 is enough (no
    slow password hash: nothing to guess)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def issue_token(
    user: AbstractBaseUser,
    name: str,
    expires_in_days: int | None = None,
    *,
    workspace: Workspace | None = None,
    read_only: bool = False,
) -> tuple[ApiToken, str]:
    """A new token of ``user``: its row and the token itself (to show once; never stored);
    ``TokenRefused`` for an account that may not hold one. ``workspace`` narrows it to one of
    the user's workspaces, ``read_only`` to reading."""
    if not may_hold_api_token(user):
        raise TokenRefused(f"API tokens are for {API_TOKEN_HOLDERS} only.")
    if expires_in_days is not None and not 1 <= expires_in_days <= MAX_EXPIRY_DAYS:
        raise ValueError(f"expires_in_days must be 1 to {MAX_EXPIRY_DAYS}")
    if workspace is not None and not workspaces_of(user).filter(pk=workspace.pk).exists():
        raise ValueError(f"{user.get_username()} is not in workspace {workspace.name!r}")
    expires_at = None
    if expires_in_days is not None:
        expires_at = timezone.now() + timedelta(days=expires_in_days)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=token[:SHOWN_CHARS],
        digest=token_digest(token),
        expires_at=expires_at,
        workspace=workspace,
        read_only=read_only,
    )
    return row, token


def find_active_token(token: str) -> ApiToken | None:
    """The active (unrevoked, unexpired) token row whose digest matches, with its user; None
    for any other string."""
    row = (
        ApiToken.objects.active().select_related("user").filter(digest=token_digest(token)).first()
    )
    if row is None:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
        row.last_used_at = now
    return row


def revoke_token(user: AbstractBaseUser, token_id: int) -> bool:
    """Revoke one of ``user``'s tokens; False when it has no such active token."""
    updated = (
        ApiToken.objects.active().filter(pk=token_id, user=user).update(revoked_at=timezone.now())
    )
    return bool(updated)
