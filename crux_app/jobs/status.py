"""What a job's page says beside its row: the queue it waits on and its place there, the time
left at the throughput so far, and the page its results fill.

A kind's queue is where Celery routes its task (settings.CELERY_TASK_ROUTES: a ``gpu_`` task
goes to ``gpu``, the rest to ``cpu``). A pending job's place counts the pending jobs of that
queue created before it; workers take a queue's tasks in the order they were sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from crux_app.celery import app as celery_app
from crux_app.models import Job

from .catalog import CATALOG, ResultsLink, results_link


@dataclass(frozen=True)
class QueuePlace:
    queue: str
    position: int  # 1: the next job of the queue a worker starts
    running: int  # jobs of the queue running now

    @property
    def ahead(self) -> int:
        return self.position - 1


@dataclass(frozen=True)
class Estimate:
    """The time left if the items still to do go as fast as the done ones went."""

    items_per_s: float
    remaining_s: float

    @property
    def rate_text(self) -> str:
        if self.items_per_s >= 1:
            return f"{self.items_per_s:.1f} items/s"
        return f"{self.items_per_s * 60:.1f} items/min"


@dataclass(frozen=True)
class JobStatus:
    queue: str | None
    place: QueuePlace | None  # pending jobs only
    estimate: Estimate | None  # running jobs with progress only
    results: ResultsLink | None


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


def queue_place(job: Job) -> QueuePlace | None:
    """A pending job's place on its queue (None when it is not pending or its kind unknown)."""
    if job.state != Job.State.PENDING:
        return None
    queue = queue_of(job.kind)
    if queue is None:
        return None
    same_queue = Job.objects.filter(kind__in=kinds_on_queue(queue))
    earlier = Q(created_at__lt=job.created_at) | Q(created_at=job.created_at, pk__lt=job.pk)
    ahead = same_queue.filter(earlier, state=Job.State.PENDING).count()
    running = same_queue.filter(state=Job.State.RUNNING).count()
    return QueuePlace(queue=queue, position=ahead + 1, running=running)


def estimate(job: Job, now: datetime | None = None) -> Estimate | None:
    """From the current attempt's items done per second (None before its first batch ends)."""
    if job.state != Job.State.RUNNING or job.running_since is None:
        return None
    if job.done <= 0 or job.done >= job.total:
        return None
    elapsed = ((now or timezone.now()) - job.running_since).total_seconds()
    if elapsed <= 0:
        return None
    rate = job.done / elapsed
    return Estimate(items_per_s=rate, remaining_s=(job.total - job.done) / rate)


def job_status(job: Job) -> JobStatus:
    return JobStatus(
        queue=queue_of(job.kind),
        place=queue_place(job),
        estimate=estimate(job),
        results=results_link(job),
    )
