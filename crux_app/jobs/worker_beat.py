"""What every Celery worker does beside its tasks, from a thread of its own (a solo-pool worker
busy with a long job still does it): each WORKER_HEARTBEAT_SECONDS it reports itself
(crux_app.jobs.heartbeat) and sweeps the jobs (crux_app.jobs.sweep: the outbox, stalled shards,
hard time limits), so no beat process is needed. It stops, and the worker's row goes, when the
worker shuts down.

The receivers are connected from the app's ready() (``connect_signals``): Celery sends
``worker_ready`` only in worker processes, so nothing else starts the thread.
"""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import connection

from .heartbeat import forget_worker, record_heartbeat
from .sweep import sweep

logger = logging.getLogger(__name__)

_stop = threading.Event()


def _beat(hostname: str, queues: list[str], concurrency: int) -> None:
    while True:
        try:
            record_heartbeat(hostname, queues, concurrency)
        except Exception:  # a database hiccup must not end the worker's reports for good
            logger.warning("worker %s could not record its heartbeat", hostname, exc_info=True)
        try:
            sweep()
        except Exception:  # nor a failed sweep its next ones
            logger.warning("worker %s could not sweep the jobs", hostname, exc_info=True)
        finally:
            connection.close()  # this thread's own connection; opened again next beat
        if _stop.wait(settings.WORKER_HEARTBEAT_SECONDS):
            return


def start_beat(sender=None, **kwargs) -> None:  # noqa: ANN001 (Celery's Consumer)
    """``worker_ready``: start the worker's beat thread."""
    hostname = sender.hostname
    queues = list(sender.app.amqp.queues.consume_from)
    concurrency = int(getattr(sender.controller, "concurrency", 1) or 1)
    _stop.clear()
    thread = threading.Thread(
        target=_beat, args=(hostname, queues, concurrency), name="heartbeat", daemon=True
    )
    thread.start()
    logger.info("worker %s reports its heartbeat for queues %s", hostname, ", ".join(queues))


def stop_beat(sender=None, **kwargs) -> None:  # noqa: ANN001 (Celery's WorkController)
    """``worker_shutdown``: stop the thread and remove the worker's row."""
    _stop.set()
    try:
        forget_worker(sender.hostname)
    except Exception:  # shutting down: the row goes stale by itself
        logger.warning("worker could not remove its heartbeat", exc_info=True)


def connect_signals() -> None:
    worker_ready.connect(start_beat, dispatch_uid="crux_app.worker_beat.start", weak=False)
    worker_shutdown.connect(stop_beat, dispatch_uid="crux_app.worker_beat.stop", weak=False)
