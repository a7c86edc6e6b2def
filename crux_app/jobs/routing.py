"""Which Celery queue a task is sent to: its job kind's declared ``queue``.

Named in settings' CELERY_TASK_ROUTES. A task that is no job kind's (crux_app's own tasks,
webhooks) gets no route and goes to the default queue (``cpu``).
"""

from __future__ import annotations

from typing import Any

from crux_app.jobs.catalog import CATALOG


def route_task(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **kw: Any):  # noqa: ANN201 (Celery's router protocol)
    """Celery router: ``{"queue": kind.queue}`` for a job kind's task, else None."""
    for kind in CATALOG.values():
        if kind.task_name == name:
            return {"queue": kind.queue}
    return None
