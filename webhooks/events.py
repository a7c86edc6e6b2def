"""Recording an event once and queueing its deliveries to the endpoints that subscribe to it.

``emit`` is what other apps call (annotation for campaign events; ``job_events`` for jobs): the
event's ``key`` names the transition, so a second call with the same key records nothing and
sends nothing. Deliveries are queued after the surrounding transaction commits.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from crux_app.models import Collection

from .audience import may_receive
from .event_types import TEST
from .models import Delivery, Endpoint, Event

logger = logging.getLogger(__name__)


def any_active_endpoint() -> bool:
    """Whether any endpoint listens at all (events are recorded only then)."""
    return Endpoint.objects.filter(active=True).exists()


def recorded(keys: Iterable[str]) -> set[str]:
    """Which of ``keys`` are recorded already."""
    return set(Event.objects.filter(key__in=list(keys)).values_list("key", flat=True))


def site_url(view_name: str, pk: int) -> str:
    """The absolute URL of a page, from SITE_URL (never from a request's Host header)."""
    return settings.SITE_URL + reverse(view_name, args=[pk])


def _payload(
    event_id: uuid.UUID, event_type: str, collection: Collection | None, data: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "id": str(event_id),
        "type": event_type,
        "created_at": timezone.now().isoformat(),
        "collection": {"id": collection.pk, "name": collection.name} if collection else None,
        "data": dict(data),
    }


def emit(
    event_type: str,
    key: str,
    collection_id: int | None,
    data: Mapping[str, Any],
    *,
    job_id: int | None = None,
) -> Event | None:
    """Record the event under ``key`` and queue a delivery to each active endpoint of its
    collection (or of all) subscribed to ``event_type`` whose maker may see the collection (or
    the job, for a job of none); None when the key was recorded before or no endpoint is
    active."""
    if not any_active_endpoint():
        return None
    collection = Collection.objects.filter(pk=collection_id).first() if collection_id else None
    event_id = uuid.uuid4()
    with transaction.atomic():
        event, created = Event.objects.get_or_create(
            key=key,
            defaults={
                "uuid": event_id,
                "type": event_type,
                "collection": collection,
                "job_id": job_id,
                "payload": _payload(event_id, event_type, collection, data),
            },
        )
        if not created:
            return None
        targets = Endpoint.objects.filter(active=True, events__contains=[event_type])
        targets = targets.filter(Q(collection__isnull=True) | Q(collection_id=collection_id))
        targets = [
            endpoint
            for endpoint in targets.select_related("created_by")
            if may_receive(endpoint, collection.pk if collection else None, job_id)
        ]
        deliveries = Delivery.objects.bulk_create(
            [Delivery(event=event, endpoint=endpoint) for endpoint in targets]
        )
        queue_deliveries([d.pk for d in deliveries])
    return event


def send_test_event(endpoint: Endpoint) -> Delivery:
    """A ``webhook.test`` event to this endpoint alone (whatever it subscribes to)."""
    event_id = uuid.uuid4()
    data = {"endpoint": endpoint.pk, "message": "A test event from the CRUX workbench."}
    with transaction.atomic():
        event = Event.objects.create(
            key=f"test:{event_id}",
            uuid=event_id,
            type=TEST,
            collection=endpoint.collection,
            payload=_payload(event_id, TEST, endpoint.collection, data),
        )
        delivery = Delivery.objects.create(event=event, endpoint=endpoint)
        queue_deliveries([delivery.pk])
    return delivery


def redeliver(delivery: Delivery) -> Delivery:
    """Send a delivery again, with a fresh series of attempts (earlier attempts are kept)."""
    with transaction.atomic():
        locked = Delivery.objects.select_for_update().get(pk=delivery.pk)
        locked.state = Delivery.State.PENDING
        locked.series_start = locked.attempts
        locked.next_attempt_at = None
        locked.finished_at = None
        locked.save(update_fields=["state", "series_start", "next_attempt_at", "finished_at"])
        queue_deliveries([locked.pk])
    return locked


def queue_deliveries(delivery_ids: list[int]) -> None:
    """Send each delivery's task once the transaction commits (a broker that is away leaves
    them pending: ``job_events.sweep`` sends stalled deliveries again)."""
    if delivery_ids:
        transaction.on_commit(lambda: _send_tasks(delivery_ids))


def _send_tasks(delivery_ids: list[int]) -> None:
    from .tasks import deliver_webhook

    for pk in delivery_ids:
        try:
            deliver_webhook.apply_async(args=[pk])
        except Exception as exc:  # noqa: BLE001 - the broker's errors; the sweep sends it later
            logger.warning("webhook delivery %s not queued (%s); the sweep retries it", pk, exc)
