"""What a job's page says beside its row: the queue it waits on and its place there, who serves
that queue, the time left at the throughput so far, and the page its results fill.

A kind's queue is where Celery routes its task (settings.CELERY_TASK_ROUTES: the queue the
kind declares, crux_app.jobs.routing). A pending job's place counts the pending jobs of that
queue created before it; workers take a queue's tasks in the order they were sent. What is ahead
of it is also what occupies the workers of its queue: the jobs running on the queue, and the jobs
of other queues that a worker consuming both runs now (``Job.worker``; workers report their
queues in ``WorkerHeartbeat``, crux_app.jobs.heartbeat).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from crux_app.celery import app as celery_app
from crux_app.models import Job, JobShard

from .catalog import CATALOG, ResultsLink, results_link
from .heartbeat import live_workers
from .shard_status import ShardsStatus, shards_status


@dataclass(frozen=True)
class Workers:
    """The live workers consuming one queue and how many of their slots are taken."""

    queue: str
    slots: int  # jobs they can run at once (0: no worker serves the queue)
    busy: int  # slots running a job now
    busy_elsewhere: int  # of those, slots running a job of another queue

    @property
    def free(self) -> int:
        return max(0, self.slots - self.busy)


@dataclass(frozen=True)
class QueuePlace:
    queue: str
    position: int  # 1: the next job of the queue a worker starts
    running: int  # jobs of the queue running now
    workers: Workers | None = None  # who serves the queue (None: not looked up)

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
    shards: ShardsStatus | None = None  # running jobs cut into shards only


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


def queue_workers(queue: str) -> Workers:
    """The live workers consuming ``queue``, their slots, and the slots their jobs hold (a
    shard under a live lease holds one; so does a running job not cut into shards)."""
    serving = [w for w in live_workers() if queue in w.queues]
    hostnames = [w.hostname for w in serving]
    fresh = timezone.now() - timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS)
    leases = JobShard.objects.filter(
        state=JobShard.State.RUNNING, worker__in=hostnames, heartbeat_at__gte=fresh
    ).values_list("job__kind", flat=True)
    unsharded = Job.objects.filter(
        state=Job.State.RUNNING, worker__in=hostnames, shards__isnull=True
    ).values_list("kind", flat=True)
    on_queue = kinds_on_queue(queue)
    busy = elsewhere = 0
    for kind in [*leases, *unsharded]:
        busy += 1
        elsewhere += kind not in on_queue
    return Workers(
        queue=queue,
        slots=sum(w.concurrency for w in serving),
        busy=busy,
        busy_elsewhere=elsewhere,
    )


def queue_place(job: Job, with_workers: bool = False) -> QueuePlace | None:
    """A pending job's place on its queue (None when it is not pending or its kind unknown);
    ``with_workers`` also says who serves the queue and how busy they are."""
    if job.state != Job.State.PENDING:
        return None
    queue = queue_of(job.kind)
    if queue is None:
        return None
    same_queue = Job.objects.filter(kind__in=kinds_on_queue(queue))
    earlier = Q(created_at__lt=job.created_at) | Q(created_at=job.created_at, pk__lt=job.pk)
    ahead = same_queue.filter(earlier, state=Job.State.PENDING).count()
    running = same_queue.filter(state=Job.State.RUNNING).count()
    workers = queue_workers(queue) if with_workers else None
    return QueuePlace(queue=queue, position=ahead + 1, running=running, workers=workers)


def queue_positions(jobs: Iterable[Job]) -> dict[int, int]:
    """job id -> place on its queue, for the pending ones of ``jobs`` (one query per queue)."""
    queues: dict[str, list[Job]] = {}
    for job in jobs:
        if job.state == Job.State.PENDING and (queue := queue_of(job.kind)) is not None:
            queues.setdefault(queue, []).append(job)
    places: dict[int, int] = {}
    for queue, waiting in queues.items():
        latest = max(waiting, key=lambda j: (j.created_at, j.pk))
        upto = Q(created_at__lt=latest.created_at) | Q(
            created_at=latest.created_at, pk__lte=latest.pk
        )
        order = (
            Job.objects.filter(upto, kind__in=kinds_on_queue(queue), state=Job.State.PENDING)
            .order_by("created_at", "pk")
            .values_list("pk", flat=True)
        )
        index = {pk: n for n, pk in enumerate(order, start=1)}
        places.update((j.pk, index[j.pk]) for j in waiting if j.pk in index)
    return places


def all_queue_workers() -> list[Workers]:
    """Every queue a job kind is routed to, with the workers serving it."""
    queues = sorted({queue_of(kind) for kind in CATALOG} - {None})
    return [queue_workers(queue) for queue in queues]


def estimate(job: Job, now: datetime | None = None) -> Estimate | None:
    """From the current attempt's items done per second (None before its first batch ends):
    a retry's items done by earlier attempts took none of this attempt's seconds."""
    if job.state != Job.State.RUNNING or job.running_since is None:
        return None
    this_attempt = job.done - job.done_before_attempt
    if this_attempt <= 0 or job.done >= job.total:
        return None
    elapsed = ((now or timezone.now()) - job.running_since).total_seconds()
    if elapsed <= 0:
        return None
    rate = this_attempt / elapsed
    return Estimate(items_per_s=rate, remaining_s=(job.total - job.done) / rate)


def job_status(job: Job) -> JobStatus:
    return JobStatus(
        queue=queue_of(job.kind),
        place=queue_place(job, with_workers=True),
        estimate=estimate(job),
        results=results_link(job),
        shards=shards_status(job),
    )
