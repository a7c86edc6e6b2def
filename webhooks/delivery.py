"""One attempt of a webhook delivery: claim it, POST the signed event, store what came back,
and say when to try again (exponential backoff) or that it is done.

The POST (``bounded_post``) goes to the address ``address_guard`` checked (the host's name in the
Host header and as the TLS server name); the whole attempt, resolution included, ends within
``WEBHOOKS_TIMEOUT_SECONDS`` (an overrun is a failed attempt), no redirect is followed and at
most ``EXCERPT_BYTES`` of the response are read.
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .address_guard import RESOLVE_TIMEOUT_S, RefusedDestination, check_destination
from .audience import NOT_VISIBLE, may_send
from .bounded_post import AttemptTimeout, post
from .models import Attempt, Delivery
from .signing import DELIVERY_HEADER, EVENT_HEADER, signed_headers

ERROR_CHARS = 1000
RETRY_MAX_S = 3600.0
USER_AGENT = "crux-workbench-webhooks/1"
EARLY = timedelta(seconds=0.5)


@dataclass(frozen=True)
class Outcome:
    """What an attempt did; ``retry_in``: seconds until the next try (None: no more tries)."""

    attempted: bool
    retry_in: float | None = None


def retry_delay(attempt_number: int) -> float:
    """Seconds to wait after failed attempt ``attempt_number`` (1, 2, ...): base x 2^(n-1),
    at most RETRY_MAX_S."""
    return min(settings.WEBHOOKS_RETRY_BASE_SECONDS * 2 ** (attempt_number - 1), RETRY_MAX_S)


def body_of(payload: dict) -> bytes:
    """The JSON body: the same bytes on every attempt (the signature is over them)."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")


def _claim(delivery_id: int, now: datetime) -> Delivery | None:
    """The pending delivery, due now and not being tried by another task; it is then held for
    the length of one attempt (so a duplicate task does nothing meanwhile)."""
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True)
            .select_related("event", "endpoint")
            .filter(pk=delivery_id, state=Delivery.State.PENDING)
            .first()
        )
        if delivery is None:
            return None
        # A retry's task may arrive a moment before its time (clocks, ETA rounding).
        if delivery.next_attempt_at is not None and delivery.next_attempt_at > now + EARLY:
            return None
        held = timedelta(seconds=settings.WEBHOOKS_TIMEOUT_SECONDS + 60)
        delivery.next_attempt_at = now + held
        delivery.save(update_fields=["next_attempt_at"])
    return delivery


def attempt_delivery(delivery_id: int, now: datetime | None = None) -> Outcome:
    """Make the delivery's next attempt if one is due; store it; schedule or end the series."""
    now = now or timezone.now()
    delivery = _claim(delivery_id, now)
    if delivery is None:
        return Outcome(attempted=False)
    endpoint, event = delivery.endpoint, delivery.event
    if not may_send(endpoint, event):  # the maker left the collection's workspace meanwhile
        return _store(delivery, now, None, "", NOT_VISIBLE, 0, permanent=True)
    body = body_of(event.payload)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        EVENT_HEADER: event.type,
        DELIVERY_HEADER: str(delivery.uuid),
        **signed_headers(endpoint.secret, body),
    }
    status, excerpt, error, permanent = None, "", "", False
    total = settings.WEBHOOKS_TIMEOUT_SECONDS
    started = time.monotonic()
    try:
        # Checked again at each attempt: the name may resolve elsewhere than at registration.
        destination = check_destination(endpoint.url, resolve_timeout=min(RESOLVE_TIMEOUT_S, total))
        # One deadline for the whole attempt, the name's resolution included.
        response = post(destination, headers, body, total - (time.monotonic() - started))
        status, excerpt = response.status, response.excerpt
    except RefusedDestination as exc:
        error, permanent = f"refused: {exc}", True
    except AttemptTimeout:
        error = f"timed out: no complete answer within {total:g} s (WEBHOOKS_TIMEOUT_SECONDS)"
    except (OSError, http.client.HTTPException) as exc:
        error = f"{type(exc).__name__}: {exc}"
    duration_ms = int((time.monotonic() - started) * 1000)
    return _store(delivery, now, status, excerpt, error[:ERROR_CHARS], duration_ms, permanent)


def _store(
    delivery: Delivery,
    started_at: datetime,
    status: int | None,
    excerpt: str,
    error: str,
    duration_ms: int,
    permanent: bool,
) -> Outcome:
    number = delivery.attempts + 1
    ok = status is not None and 200 <= status < 300
    in_series = number - delivery.series_start
    retry_in = None
    with transaction.atomic():
        Attempt.objects.create(
            delivery=delivery,
            number=number,
            started_at=started_at,
            status_code=status,
            response_excerpt=excerpt,
            error=error,
            duration_ms=duration_ms,
        )
        delivery.attempts = number
        if ok or permanent or in_series >= settings.WEBHOOKS_MAX_ATTEMPTS:
            delivery.state = Delivery.State.SUCCEEDED if ok else Delivery.State.FAILED
            delivery.finished_at = timezone.now()
            delivery.next_attempt_at = None
        else:
            retry_in = retry_delay(in_series)
            delivery.next_attempt_at = timezone.now() + timedelta(seconds=retry_in)
        delivery.save(update_fields=["attempts", "state", "finished_at", "next_attempt_at"])
    return Outcome(attempted=True, retry_in=retry_in)
