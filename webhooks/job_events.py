"""Job events: ``job.succeeded``, ``job.failed`` and ``import.failed``, once per job and event.

Two ways see a job reach its final state, and both record through ``webhooks.events.emit``
under the key ``job:<id>:<event>``, so whichever comes second sends nothing:

- a ``post_save`` receiver on ``Job`` (a save that writes the state);
- a sweep, sent by Celery beat every ``WEBHOOKS_SWEEP_SECONDS`` (``webhooks.sweep``) and run
  after every other Celery task of a worker (``task_postrun``), for what the receiver cannot
  see: a state written by a queryset ``update()`` (no ``post_save``), a process killed between
  the state's commit and the event's. It looks at jobs finished in the last ``SWEEP_WINDOW``
  (and since the oldest active endpoint was made) that have no event for their state yet, and
  sends again deliveries that stalled (a broker that was away, a worker killed between tries).
  ``manage.py send_webhook_events`` runs it from the command line (jobs run by a command
  finish without a worker).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from celery.signals import task_postrun
from django.db import transaction
from django.db.models import Case, Exists, Min, OuterRef, Q, Value, When
from django.db.models.signals import post_save
from django.utils import timezone

from crux_app.dataio.imports.job import KIND as IMPORT_KIND
from crux_app.models import Job

from .event_types import IMPORT_FAILED, JOB_FAILED, JOB_SUCCEEDED
from .events import emit, queue_deliveries, site_url
from .models import Delivery, Endpoint, Event

SWEEP_WINDOW = timedelta(days=1)
# A pending delivery whose task should have run by now (never queued, or its retry was lost):
# past its time by more than this (a queued task runs a little late; sending it again is
# harmless, as a second task finds the delivery claimed or not due and does nothing).
STALLED_AFTER = timedelta(minutes=2)
MESSAGE_CHARS = 2000
# Params that name server-side paths (an import's stored upload), not for other machines.
PRIVATE_PARAMS = ("source",)


def job_event_types(job: Job) -> list[str]:
    """The events a job in its current state gives (none before it finishes)."""
    if job.state == Job.State.SUCCEEDED:
        return [JOB_SUCCEEDED]
    if job.state == Job.State.FAILED:
        return [JOB_FAILED, IMPORT_FAILED] if job.kind == IMPORT_KIND else [JOB_FAILED]
    return []


def job_data(job: Job) -> dict[str, Any]:
    """The ``data`` of a job event."""
    params = {k: v for k, v in (job.params or {}).items() if k not in PRIVATE_PARAMS}
    return {
        "job": {
            "id": job.pk,
            "kind": job.kind,
            "state": job.state,
            "done": job.done,
            "total": job.total,
            "message": (job.message or "")[:MESSAGE_CHARS],
            "params": params,
            "url": site_url("job-detail", job.pk),
        }
    }


def record_job_events(job: Job) -> int:
    """Emit the job's events for its state (each once ever); returns how many were new."""
    emitted = 0
    with transaction.atomic():
        for event_type in job_event_types(job):
            key = f"job:{job.pk}:{event_type}"
            if emit(event_type, key, job.collection_id, job_data(job), job_id=job.pk):
                emitted += 1
    return emitted


def on_job_saved(sender: type, instance: Job, update_fields: Any = None, **kwargs: Any) -> None:
    if update_fields is not None and "state" not in update_fields:
        return
    if job_event_types(instance):
        record_job_events(instance)


def unnotified_jobs(now: datetime | None = None):
    """Finished jobs (succeeded or failed) of the sweep's window with no event for their state."""
    now = now or timezone.now()
    oldest = Endpoint.objects.filter(active=True).aggregate(at=Min("created_at"))["at"]
    if oldest is None:
        return Job.objects.none()
    expected = Case(
        When(state=Job.State.SUCCEEDED, then=Value(JOB_SUCCEEDED)), default=Value(JOB_FAILED)
    )
    notified = Event.objects.filter(job_id=OuterRef("pk"), type=OuterRef("expected_event"))
    return (
        Job.objects.filter(
            state__in=[Job.State.SUCCEEDED, Job.State.FAILED],
            finished_at__gte=max(oldest, now - SWEEP_WINDOW),
        )
        .annotate(expected_event=expected)
        .exclude(Exists(notified))
        .order_by("finished_at", "pk")
    )


def stalled_deliveries(now: datetime | None = None):
    now = now or timezone.now()
    return Delivery.objects.filter(state=Delivery.State.PENDING).filter(
        Q(next_attempt_at__isnull=True, created_at__lt=now - STALLED_AFTER)
        | Q(next_attempt_at__lt=now - STALLED_AFTER)
    )


def sweep(now: datetime | None = None) -> int:
    """Emit the events of jobs finished unseen, and queue stalled deliveries again; returns
    how many job events were emitted."""
    if not Endpoint.objects.filter(active=True).exists():
        return 0
    emitted = sum(record_job_events(job) for job in unnotified_jobs(now))
    stalled = list(stalled_deliveries(now).values_list("pk", flat=True)[:500])
    if stalled:
        with transaction.atomic():
            # Not picked up again by the next sweep before its task runs.
            Delivery.objects.filter(pk__in=stalled).update(next_attempt_at=timezone.now())
            queue_deliveries(stalled)
    return emitted


def after_task(sender: Any = None, **kwargs: Any) -> None:
    """Celery's ``task_postrun``: sweep after any task but the webhooks' own."""
    name = getattr(sender, "name", "") or ""
    if not name.startswith("webhooks."):
        sweep()


def connect_signals() -> None:
    post_save.connect(on_job_saved, sender=Job, dispatch_uid="webhooks.job_saved")
    task_postrun.connect(after_task, dispatch_uid="webhooks.after_task", weak=False)


SWEEP_TASK_NAME = "webhooks.sweep"


@shared_task(name=SWEEP_TASK_NAME, ignore_result=True)
def sweep_webhooks() -> int:
    """Celery beat's sweep (every ``WEBHOOKS_SWEEP_SECONDS``, settings.CELERY_BEAT_SCHEDULE):
    emit the events of jobs finished unseen and queue stalled deliveries again."""
    return sweep()
