"""Who an event may go to: an endpoint carries only what its maker may see when the event is
recorded and again when it is sent (``crux_app.access``: their workspaces now)."""

from __future__ import annotations

from crux_app.models import Collection, Job

from .event_types import TEST
from .models import Endpoint, Event

NOT_VISIBLE = "not sent: the endpoint's maker may not see this event's collection (or job) any more"


def may_receive(endpoint: Endpoint, collection_id: int | None, job_id: int | None) -> bool:
    """Whether the endpoint's maker may see what an event is about: its collection; for one
    of no collection, its job (the maker's own); else only a superuser's endpoint. An endpoint
    whose maker's account is gone or switched off receives nothing."""
    owner = endpoint.created_by
    if owner is None or not owner.is_active:
        return False
    if collection_id is not None:
        return Collection.objects.visible_to(owner).filter(pk=collection_id).exists()
    if job_id is not None:
        return Job.objects.visible_to(owner).filter(pk=job_id).exists()
    return owner.is_superuser


def may_send(endpoint: Endpoint, event: Event) -> bool:
    """Checked before each attempt: a test event goes to the endpoint that asked for it."""
    return event.type == TEST or may_receive(endpoint, event.collection_id, event.job_id)
