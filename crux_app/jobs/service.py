"""Starting and retrying jobs: create the Job row, then send its task once the row is committed."""

from __future__ import annotations

from typing import Any

from celery import uuid
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from crux_app.models import Collection, Job, Topic

from .catalog import get_kind
from .dispatch import BROKER_ERRORS, put_in_outbox, send_job_task
from .shards import reopen_unfinished_shards


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
    """Send a finished job's task again (a cancelled one resumes): only its shards that did not
    succeed run again, and their work is idempotent, so only missing items are done."""
    with transaction.atomic():
        locked = Job.objects.select_for_update().get(pk=job.pk)
        if not locked.is_finished:
            raise JobNotRetryable(
                f"job #{job.pk} is {locked.state}; only finished jobs can be retried"
            )
        reopen_unfinished_shards(locked)
        locked.state = Job.State.PENDING
        locked.celery_task_id = uuid()
        locked.finished_at = None
        locked.message = ""
        locked.cancel_requested = False
        locked.outbox_since = None
        locked.save(
            update_fields=[
                *("state", "celery_task_id", "finished_at", "message"),
                *("cancel_requested", "outbox_since"),
            ]
        )
        _send_on_commit(locked)
    job.refresh_from_db()
    return job


def cancel_job(job: Job) -> Job:
    """Cancel a job: a pending one at once (a worker that gets its task does nothing), a running
    one before the next batch of each shard (the last shard to stop ends it cancelled). Stored
    results are kept."""
    with transaction.atomic():
        locked = Job.objects.select_for_update().get(pk=job.pk)
        if locked.state == Job.State.PENDING:
            locked.cancel_requested = True
            locked.save(update_fields=["cancel_requested"])
            locked.end(Job.State.CANCELLED, CANCELLED_PENDING_MESSAGE)
        elif locked.state == Job.State.RUNNING:
            locked.cancel_requested = True
            locked.save(update_fields=["cancel_requested"])
        else:
            raise JobNotCancellable(
                f"job #{job.pk} is {locked.state}; only pending or running jobs can be cancelled"
            )
    job.refresh_from_db()
    return job


def _send_on_commit(job: Job) -> None:
    # Sending before the commit would let a fast worker look for a row it cannot see yet.
    transaction.on_commit(lambda: send_or_queue(job))


def send_or_queue(job: Job) -> bool:
    """Send the job's task under its stored task id; when the broker does not answer, the job
    waits in the outbox (its page says so) and a worker's sweep sends it later. True: sent."""
    try:
        send_job_task(job.pk, job.kind, job.celery_task_id)
    except BROKER_ERRORS as exc:
        put_in_outbox(job.pk, exc)
        return False
    return True
