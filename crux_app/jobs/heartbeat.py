"""Who serves a queue: every Celery worker keeps a ``WorkerHeartbeat`` row (its queues, its
concurrency), written by its beat thread (crux_app.jobs.worker_beat) when it is ready and every
WORKER_HEARTBEAT_SECONDS after, and removed when it shuts down. Pages read who serves a queue
from the rows seen within STALE_AFTER_SECONDS (less when workers beat faster): a killed worker
drops out of them by itself.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from crux_app.models import WorkerHeartbeat

STALE_AFTER_SECONDS = 45


def record_heartbeat(hostname: str, queues: list[str], concurrency: int) -> None:
    """Write (or refresh) this worker's row."""
    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname,
        defaults={
            "queues": sorted(queues),
            "concurrency": max(1, concurrency),
            "seen_at": timezone.now(),
        },
    )


def forget_worker(hostname: str) -> None:
    """Remove the worker's row (it stopped)."""
    WorkerHeartbeat.objects.filter(hostname=hostname).delete()


def stale_after_s() -> float:
    """A worker silent this long is gone: STALE_AFTER_SECONDS, or four and a half beats when
    workers beat faster (a killed worker must not count as a free one for long)."""
    return min(STALE_AFTER_SECONDS, 4.5 * settings.WORKER_HEARTBEAT_SECONDS)


def live_workers() -> QuerySet[WorkerHeartbeat]:
    """The workers that reported within ``stale_after_s``."""
    since = timezone.now() - timedelta(seconds=stale_after_s())
    return WorkerHeartbeat.objects.filter(seen_at__gte=since)
