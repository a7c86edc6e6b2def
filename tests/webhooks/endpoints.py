"""Endpoints for webhook tests."""

from __future__ import annotations

from crux_app.models import Collection
from webhooks.event_types import SUBSCRIBABLE
from webhooks.models import Endpoint

SECRET = "whsec-test-0123456789"


def make_endpoint(
    url: str = "http://127.0.0.1:9/hooks",
    *,
    collection: Collection | None = None,
    events: tuple[str, ...] = SUBSCRIBABLE,
    active: bool = True,
    owner=None,  # noqa: ANN001 (a user; None: no owner, which only superusers see)
) -> Endpoint:
    return Endpoint.objects.create(
        url=url,
        secret=SECRET,
        collection=collection,
        events=list(events),
        active=active,
        created_by=owner,
    )
