"""Starting and retrying jobs: create the Job row, then send its task once the row is committed."""

from __future__ import annotations

from typing import Any

from celery import uuid
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from crux_app.celery import app as celery_app
from crux_app.models import Collection, Job, Topic

from .catalog import get_kind


class JobNotRetryable(ValueError):
    """A job that is still pending or running cannot be sent again."""


class JobNotCancellable(ValueError):
    """A finished job has nothing left to cancel."""


CANCELLED_PENDING_MESSAGE = "cancelled before a worker started it"


def start_job(
    kind: str,
    params: dict[str, Any] | None = None,
    collection: Collection | None = None,
    topic: Topic | None = None,
    user: AbstractBaseUser | None = None,
) -> Job:
    """Create a pending job and send its task when the surrounding transaction commits."""
    get_kind(kind)  # fail fast, before a row exists, on a kind nobody can run
    if topic is not None and collection is None:
        collection = topic.collection
    if topic is not None and topic.collection_id != collection.pk:
        raise ValueError(f"topic {topic.external_id!r} is not in collection {collection.name!r}")
    job = Job.objects.create(
        kind=kind,
        params=params or {},
        collection=collection,
        topic=topic,
        created_by=user if user is not None and user.is_authenticated else None,
        celery_task_id=uuid(),
    )
    _send_on_commit(job)
    return job


def retry_job(job: Job) -> Job:
    """Send a finished job's task again (a cancelled one resumes); its work is idempotent, so
    only missing items are done."""
    job.refresh_from_db()
    if not job.is_finished:
        raise JobNotRetryable(f"job #{job.pk} is {job.state}; only finished jobs can be retried")
    Job.objects.filter(pk=job.pk).update(
        state=Job.State.PENDING,
        celery_task_id=uuid(),
        finished_at=None,
        message="",
        cancel_requested=False,
    )
    job.refresh_from_db()
    _send_on_commit(job)
    return job


def cancel_job(job: Job) -> Job:
    """Cancel a job: a pending one at once (a worker that gets its task does nothing), a running
    one before its next batch (its worker ends it cancelled). Stored results are kept."""
    pending = Job.objects.filter(pk=job.pk, state=Job.State.PENDING)
    cancelled_now = pending.update(
        state=Job.State.CANCELLED,
        cancel_requested=True,
        finished_at=timezone.now(),
        message=CANCELLED_PENDING_MESSAGE,
    )
    if not cancelled_now:
        running = Job.objects.filter(pk=job.pk, state=Job.State.RUNNING)
        if not running.update(cancel_requested=True):
            job.refresh_from_db()
            raise JobNotCancellable(
                f"job #{job.pk} is {job.state}; only pending or running jobs can be cancelled"
            )
    job.refresh_from_db()
    return job


def _send_on_commit(job: Job) -> None:
    # Sending before the commit would let a fast worker look for a row it cannot see yet.
    transaction.on_commit(lambda: send_job_task(job.pk, job.kind, job.celery_task_id))


def send_job_task(job_id: int, kind: str, task_id: str) -> None:
    """Send the kind's task for ``job_id`` under the task id already stored on the job."""
    task_name = get_kind(kind).task_name
    if celery_app.conf.task_always_eager:
        # send_task ignores eager mode; unit tests run the task object in-process instead.
        _registered_task(task_name).apply_async(args=[job_id], task_id=task_id)
    else:
        celery_app.send_task(task_name, args=[job_id], task_id=task_id)


def _registered_task(task_name: str):
    if task_name not in celery_app.tasks:
        celery_app.loader.import_default_modules()  # runs the apps' tasks autodiscovery
    return celery_app.tasks[task_name]
