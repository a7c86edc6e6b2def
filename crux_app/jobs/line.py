"""A queue's line: the jobs waiting for a worker of the queue, in the order workers take them.

A job waits in line while it is pending (its task was sent when it was created or retried) or
while a shard of it stalled (its worker's heartbeat stopped) and the task sent to resume it waits
(``JobShard.resume_sent_at``, crux_app.jobs.sweep). Workers take a queue's tasks in the order
they were sent, except for jobs a researcher moved up ("run next", ``Job.moved_up_at``): the
next task a worker of the queue takes runs the latest moved-up job first (crux_app.jobs.runner),
whatever job that task was sent for, so the line puts moved-up jobs first, latest first.

A kind's queue is where Celery routes its task (settings.CELERY_TASK_ROUTES: the queue the kind
declares, crux_app.jobs.routing).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Min
from django.utils import timezone

from crux_app.celery import app as celery_app
from crux_app.models import Job, JobShard

from .catalog import CATALOG


class JobNotWaiting(ValueError):
    """Only a job waiting for a worker (pending, or stalled) can be moved up its queue."""


def task_queue(task_name: str) -> str:
    """The queue Celery routes the task to."""
    route = celery_app.amqp.router.route({}, task_name, args=(), kwargs={})
    return route["queue"].name


def queue_of(kind: str) -> str | None:
    """The queue of a kind's task (None for a kind no longer in the catalog)."""
    entry = CATALOG.get(kind)
    return task_queue(entry.task_name) if entry else None


def kinds_on_queue(queue: str) -> list[str]:
    return [name for name, entry in CATALOG.items() if task_queue(entry.task_name) == queue]


@dataclass(frozen=True)
class Waiting:
    """One job in a queue's line."""

    job_id: int
    since: datetime  # when the task it waits on was sent (created, retried, resume queued)
    moved_up_at: datetime | None
    stalled: bool  # running, with a shard whose worker stopped (it waits to resume)

    @property
    def order(self) -> tuple:
        moved = self.moved_up_at
        # Moved-up jobs first, the latest move first; then in the order their tasks were sent.
        return (moved is None, -moved.timestamp() if moved else 0.0, self.since, self.job_id)


def stalled_shards():  # noqa: ANN201 (a queryset of JobShard)
    """Running shards of running jobs whose lease is older than the grace: their worker died."""
    stale = timezone.now() - timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS)
    return JobShard.objects.filter(
        state=JobShard.State.RUNNING, heartbeat_at__lt=stale, job__state=Job.State.RUNNING
    )


def queue_line(queue: str) -> list[Waiting]:
    """The jobs waiting on ``queue``, first in line first (two queries)."""
    kinds = kinds_on_queue(queue)
    pending = Job.objects.filter(kind__in=kinds, state=Job.State.PENDING).values_list(
        "pk", "created_at", "moved_up_at"
    )
    entries = [Waiting(pk, created, moved, False) for pk, created, moved in pending]
    now = timezone.now()
    stalled = (
        stalled_shards()
        .filter(job__kind__in=kinds)
        .values("job_id", "job__moved_up_at")
        .annotate(queued=Min("resume_sent_at"))
    )
    entries += [
        Waiting(row["job_id"], row["queued"] or now, row["job__moved_up_at"], True)
        for row in stalled
    ]
    return sorted(entries, key=lambda entry: entry.order)


def place_in_line(job: Job) -> tuple[str, int] | None:
    """(queue, position) of a waiting job (1: the next a worker of the queue takes); None when
    the job does not wait or its kind is unknown."""
    queue = queue_of(job.kind)
    if queue is None:
        return None
    for position, entry in enumerate(queue_line(queue), start=1):
        if entry.job_id == job.pk:
            return queue, position
    return None


def line_positions(jobs: list[Job]) -> dict[int, int]:
    """job id -> place in its queue's line, for those of ``jobs`` waiting (one line a queue)."""
    queues = {queue_of(job.kind) for job in jobs if not job.is_finished} - {None}
    positions: dict[int, int] = {}
    for queue in queues:
        positions.update((entry.job_id, n) for n, entry in enumerate(queue_line(queue), start=1))
    wanted = {job.pk for job in jobs}
    return {pk: n for pk, n in positions.items() if pk in wanted}


def move_up(job: Job) -> int:
    """Put a waiting job first in its queue's line ("run next"); its new position (1).

    Raises ``JobNotWaiting`` for a job no worker waits to take (finished, or running on a live
    worker)."""
    if place_in_line(job) is None:
        raise JobNotWaiting(
            f"job #{job.pk} is not waiting for a worker: only a pending job, or one whose "
            "worker stopped, can be moved up its queue"
        )
    job.moved_up_at = timezone.now()
    Job.objects.filter(pk=job.pk).update(moved_up_at=job.moved_up_at)
    return 1


def take_moved_up(queue: str, besides: int) -> int | None:
    """The moved-up job this worker runs before the job ``besides`` its task was sent for, or
    None (``besides`` is first, or nothing was moved up). Taking it clears its mark, so one
    worker takes it."""
    for entry in queue_line(queue):
        if entry.moved_up_at is None or entry.job_id == besides:
            return None  # moved-up jobs come first: the rest wait their turn
        mark = Job.objects.filter(pk=entry.job_id, moved_up_at=entry.moved_up_at)
        if mark.update(moved_up_at=None):
            return entry.job_id
    return None


def taken(job: Job) -> None:
    """A worker took the job: a "run next" asked for is done."""
    if job.moved_up_at is not None:
        Job.objects.filter(pk=job.pk).update(moved_up_at=None)
        job.moved_up_at = None
