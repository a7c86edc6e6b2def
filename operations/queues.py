"""The Celery queues this install declares, each of which needs a live worker."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings

from crux_app.jobs.catalog import CATALOG


def _queue_names(value: Any) -> Iterable[str]:
    """Queue names in a setting's value: names, kombu Queues, routes or schedule entries."""
    if isinstance(value, str):
        yield value
    elif hasattr(value, "name") and not isinstance(value, Mapping):
        yield str(value.name)
    elif isinstance(value, Mapping):
        queue = value.get("queue")
        if queue is not None:
            yield from _queue_names(queue)
        for nested in value.values():
            if isinstance(nested, Mapping):
                yield from _queue_names(nested)
    elif isinstance(value, Iterable):
        for item in value:
            if isinstance(item, str) and "." in item:
                continue  # a router's dotted path, not a queue
            yield from _queue_names(item)


def declared_queues() -> list[str]:
    """Every queue a task may be sent to: the job kinds' queues, the default queue, and those
    named in CELERY_TASK_QUEUES, CELERY_TASK_ROUTES (dict routes) and CELERY_BEAT_SCHEDULE."""
    found = {kind.queue for kind in CATALOG.values()}
    found.add(settings.CELERY_TASK_DEFAULT_QUEUE)
    for name in ("CELERY_TASK_QUEUES", "CELERY_TASK_ROUTES", "CELERY_BEAT_SCHEDULE"):
        found.update(_queue_names(getattr(settings, name, None) or ()))
    return sorted(q for q in found if q)
