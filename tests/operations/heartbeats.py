"""WorkerHeartbeat rows for the operations tests: fresh ones for every declared queue, or stale."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from crux_app.jobs.heartbeat import STALE_AFTER_SECONDS
from crux_app.models import WorkerHeartbeat
from operations.queues import declared_queues


def fresh_workers() -> None:
    """One live worker per declared queue, as a deployment's process list starts them."""
    for queue in declared_queues():
        WorkerHeartbeat.objects.create(
            hostname=f"{queue}@host", queues=[queue], seen_at=timezone.now()
        )


def make_stale(hostname: str) -> None:
    """The worker stopped reporting (killed: its row stays behind)."""
    WorkerHeartbeat.objects.filter(hostname=hostname).update(
        seen_at=timezone.now() - timedelta(seconds=STALE_AFTER_SECONDS + 5)
    )
