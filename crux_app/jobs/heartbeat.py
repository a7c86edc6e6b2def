"""Workers report themselves: every Celery worker writes a ``WorkerHeartbeat`` row (its queues,
its concurrency) when it is ready and every HEARTBEAT_SECONDS after, from a thread of its own (a
solo-pool worker busy with a long job still reports), and removes it when it shuts down. Pages
read who serves a queue from the rows seen within STALE_AFTER_SECONDS: a killed worker drops
out of them by itself.

The receivers are connected by crux_app/celery.py, so only worker processes run them.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from celery.signals import worker_ready, worker_shutdown

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 10
STALE_AFTER_SECONDS = 45

_stop = threading.Event()


def record_heartbeat(hostname: str, queues: list[str], concurrency: int) -> None:
    """Write (or refresh) this worker's row."""
    from django.utils import timezone

    from crux_app.models import WorkerHeartbeat

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
    from crux_app.models import WorkerHeartbeat

    WorkerHeartbeat.objects.filter(hostname=hostname).delete()


def live_workers():  # noqa: ANN201 (a queryset of WorkerHeartbeat)
    """The workers that reported within STALE_AFTER_SECONDS."""
    from django.utils import timezone

    from crux_app.models import WorkerHeartbeat

    since = timezone.now() - timedelta(seconds=STALE_AFTER_SECONDS)
    return WorkerHeartbeat.objects.filter(seen_at__gte=since)


def _beat(hostname: str, queues: list[str], concurrency: int) -> None:
    from django.db import connection

    while True:
        try:
            record_heartbeat(hostname, queues, concurrency)
        except Exception:  # a database hiccup must not end the worker's reports for good
            logger.warning("worker %s could not record its heartbeat", hostname, exc_info=True)
        finally:
            connection.close()  # this thread's own connection; opened again next beat
        if _stop.wait(HEARTBEAT_SECONDS):
            return


@worker_ready.connect
def _start_heartbeat(sender=None, **kwargs) -> None:  # noqa: ANN001 (Celery's Consumer)
    hostname = sender.hostname
    queues = list(sender.app.amqp.queues.consume_from)
    concurrency = int(getattr(sender.controller, "concurrency", 1) or 1)
    _stop.clear()
    thread = threading.Thread(
        target=_beat, args=(hostname, queues, concurrency), name="heartbeat", daemon=True
    )
    thread.start()
    logger.info("worker %s reports its heartbeat for queues %s", hostname, ", ".join(queues))


@worker_shutdown.connect
def _stop_heartbeat(sender=None, **kwargs) -> None:  # noqa: ANN001 (Celery's WorkController)
    _stop.set()
    try:
        forget_worker(sender.hostname)
    except Exception:  # shutting down: the row goes stale by itself
        logger.warning("worker could not remove its heartbeat", exc_info=True)
