"""A job's log lines carry its id: while a job's task runs, the job id is in the logging context
(``log_context.job_id``), and its start and finish are logged as events of their own.

Connected from the app's ready() to Celery's task signals, which fire in the process that runs
the task (a prefork child or a solo worker), so no task or job runner names this module.
"""

from __future__ import annotations

import logging
from contextvars import Token
from typing import Any

from celery.signals import task_failure, task_postrun, task_prerun

from crux_app.jobs.catalog import job_task_name

from .log_context import job_id

logger = logging.getLogger("crux.jobs")

_JOB_TASK_PREFIX = job_task_name("")
_tokens: dict[str, Token] = {}


def _job_of(task: Any, args: Any) -> int | None:
    """The job id a job kind's task was sent for (its first argument), else None."""
    name = getattr(task, "name", "") or ""
    if not name.startswith(_JOB_TASK_PREFIX) or not args:
        return None
    try:
        return int(args[0])
    except (TypeError, ValueError):
        return None


def on_prerun(task_id: str = "", task: Any = None, args: Any = None, **kwargs: Any) -> None:
    """Bind the job id and log the job's start."""
    job = _job_of(task, args)
    if job is None:
        return
    _tokens[task_id] = job_id.set(job)
    kind = task.name[len(_JOB_TASK_PREFIX) :]
    logger.info("job start", extra={"event": "job_start", "kind": kind, "task_id": task_id})


def on_postrun(task_id: str = "", task: Any = None, args: Any = None, **kwargs: Any) -> None:
    """Log the job's finish (with its stored state) and unbind the job id."""
    token = _tokens.pop(task_id, None)
    if token is None:
        return
    from crux_app.models import Job

    state = Job.objects.filter(pk=job_id.get()).values_list("state", flat=True).first()
    logger.info(
        "job finish",
        extra={"event": "job_finish", "state": state or "deleted", "task_id": task_id},
    )
    job_id.reset(token)


def on_failure(task_id: str = "", exception: BaseException | None = None, **kwargs: Any) -> None:
    """A job's task raised: an error line with its traceback, while the job id is bound."""
    if task_id in _tokens:
        logger.error(
            "job task raised",
            exc_info=(type(exception), exception, exception.__traceback__) if exception else None,
            extra={"event": "job_error", "task_id": task_id},
        )


def connect_signals() -> None:
    task_prerun.connect(on_prerun, dispatch_uid="operations.job_logging.prerun", weak=False)
    task_postrun.connect(on_postrun, dispatch_uid="operations.job_logging.postrun", weak=False)
    task_failure.connect(on_failure, dispatch_uid="operations.job_logging.failure", weak=False)
