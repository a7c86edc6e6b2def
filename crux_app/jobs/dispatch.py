"""Sending a job's tasks: the first one on start or retry (into the outbox when the broker does
not answer), and more for the other workers once the job is planned into shards.

A job whose task the broker did not take keeps ``Job.outbox_since``; every worker's sweep
(crux_app.jobs.sweep) sends it once the broker answers. Starting a job never fails because the
broker is down.
"""

from __future__ import annotations

import logging

from celery import current_task, uuid
from django.conf import settings
from django.utils import timezone
from kombu.exceptions import OperationalError

from crux_app.celery import app as celery_app
from crux_app.models import Job

from .catalog import get_kind
from .time_limits import limits_for

logger = logging.getLogger(__name__)

# What a broker that does not answer raises from send_task (kombu wraps most of them).
BROKER_ERRORS = (OperationalError, ConnectionError, OSError, TimeoutError)
# A start waits about this long for a broker that does not answer (then the outbox keeps it).
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2}


def send_job_task(job_id: int, kind: str, task_id: str) -> None:
    """Send the kind's task for ``job_id`` under ``task_id``; raises BROKER_ERRORS when the
    broker does not take it. A hard time limit goes with it (a prefork pool kills the task)."""
    task_name = get_kind(kind).task_name
    options = {"task_id": task_id, "time_limit": limits_for(kind).hard_s}
    if celery_app.conf.task_always_eager:
        # send_task ignores eager mode; unit tests run the task object in-process instead.
        registered_task(task_name).apply_async(args=[job_id], **options)
    else:
        celery_app.send_task(task_name, args=[job_id], retry_policy=PUBLISH_RETRY_POLICY, **options)


def registered_task(task_name: str):  # noqa: ANN201 (a Celery task)
    """The task registered under ``task_name`` (the apps' tasks modules imported if needed)."""
    if task_name not in celery_app.tasks:
        celery_app.loader.import_default_modules()  # runs the apps' tasks autodiscovery
    return celery_app.tasks[task_name]


def put_in_outbox(job_id: int, reason: BaseException) -> None:
    """Keep a job whose task the broker did not take for the workers' sweep to send."""
    logger.warning("job #%s waits in the outbox: the broker did not answer (%s)", job_id, reason)
    Job.objects.filter(pk=job_id, outbox_since__isnull=True).update(outbox_since=timezone.now())


def in_worker_task() -> bool:
    """Whether this code runs in a task a worker took from the broker (not eager, not a CLI)."""
    request = getattr(current_task, "request", None)
    return bool(getattr(request, "hostname", None)) and not getattr(request, "is_eager", False)


def fan_out(job: Job, shards: int) -> int:
    """Send tasks for the job's other shards (at most JOB_MAX_TASKS in all), so idle workers of
    its queue join in; the number sent. Only from a worker's task: eager tests and commands run
    every shard in their own loop. A broker error stops the sending (this task runs the rest)."""
    if not in_worker_task():
        return 0
    sent = 0
    for _ in range(min(shards, settings.JOB_MAX_TASKS) - 1):
        try:
            send_job_task(job.pk, job.kind, uuid())
        except BROKER_ERRORS as exc:
            logger.warning("job #%s: no more tasks sent (%s); this worker runs on", job.pk, exc)
            break
        sent += 1
    return sent
