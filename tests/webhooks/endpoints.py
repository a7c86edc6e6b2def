"""Endpoints for webhook tests."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from crux_app.models import Collection
from webhooks.event_types import SUBSCRIBABLE
from webhooks.models import Endpoint

SECRET = "whsec-test-0123456789"
ADMIN = object()  # make_endpoint's default owner: a superuser, who may see every collection


def hooks_admin():  # noqa: ANN201 (a user)
    """A superuser owning endpoints that receive every event."""
    user, _ = get_user_model().objects.get_or_create(
        username="hooks-admin", defaults={"is_superuser": True, "is_staff": True}
    )
    return user


def make_endpoint(
    url: str = "http://127.0.0.1:9/hooks",
    *,
    collection: Collection | None = None,
    events: tuple[str, ...] = SUBSCRIBABLE,
    active: bool = True,
    owner=ADMIN,  # noqa: ANN001 (a user; None: no owner: only superusers see it, it gets nothing)
) -> Endpoint:
    return Endpoint.objects.create(
        url=url,
        secret=SECRET,
        collection=collection,
        events=list(events),
        active=active,
        created_by=hooks_admin() if owner is ADMIN else owner,
    )
