"""Who serves a queue now: the live workers consuming it (crux_app.jobs.heartbeat), their slots,
and which worker runs which job in them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from crux_app.models import Job, JobShard, WorkerHeartbeat

from .catalog import CATALOG
from .heartbeat import live_workers
from .line import kinds_on_queue, queue_of


@dataclass(frozen=True)
class Busy:
    """A worker slot taken by a job."""

    worker: str
    job_id: int
    kind: str


@dataclass(frozen=True)
class Workers:
    """The live workers consuming one queue and how many of their slots are taken."""

    queue: str
    slots: int  # jobs they can run at once (0: no worker serves the queue)
    busy: int  # slots running a job now
    busy_elsewhere: int  # of those, slots running a job of another queue
    holding: tuple[Busy, ...] = ()  # which worker runs which job

    @property
    def free(self) -> int:
        return max(0, self.slots - self.busy)


def _serving(queue: str) -> list[WorkerHeartbeat]:
    """The live workers consuming ``queue``. A worker whose lease went stale stopped (killed,
    frozen) though its row is not stale yet; one that reported well after its lease's last beat
    was restarted under the same name."""
    grace = timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS)
    stale_leases = JobShard.objects.filter(
        state=JobShard.State.RUNNING, heartbeat_at__lt=timezone.now() - grace
    )
    last_beat = dict(stale_leases.values_list("worker", "heartbeat_at"))
    return [
        w
        for w in live_workers()
        if queue in w.queues
        and (w.hostname not in last_beat or w.seen_at > last_beat[w.hostname] + grace)
    ]


def queue_workers(queue: str) -> Workers:
    """The live workers consuming ``queue``, their slots, and the slots their jobs hold (a
    shard under a live lease holds one; so does a running job not cut into shards)."""
    fresh = timezone.now() - timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS)
    serving = _serving(queue)
    hostnames = [w.hostname for w in serving]
    leases = JobShard.objects.filter(
        state=JobShard.State.RUNNING, worker__in=hostnames, heartbeat_at__gte=fresh
    ).values_list("worker", "job_id", "job__kind")
    unsharded = Job.objects.filter(
        state=Job.State.RUNNING, worker__in=hostnames, shards__isnull=True
    ).values_list("worker", "pk", "kind")
    on_queue = kinds_on_queue(queue)
    holding = tuple(sorted({Busy(*row) for row in [*leases, *unsharded]}, key=_busy_order))
    return Workers(
        queue=queue,
        slots=sum(w.concurrency for w in serving),
        busy=len(holding),
        busy_elsewhere=sum(busy.kind not in on_queue for busy in holding),
        holding=holding,
    )


def idle_since(queue: str, before: datetime) -> bool:
    """Whether a worker of ``queue`` has had a free slot since ``before``: it holds fewer jobs
    than its slots and ended none after ``before`` (one that just freed up may not have taken
    its next task yet)."""
    workers = queue_workers(queue)
    held = Counter(busy.worker for busy in workers.holding)
    for worker in _serving(queue):
        if held[worker.hostname] >= worker.concurrency:
            continue
        ended = [
            JobShard.objects.filter(worker=worker.hostname).aggregate(at=Max("finished_at"))["at"],
            Job.objects.filter(worker=worker.hostname).aggregate(at=Max("finished_at"))["at"],
        ]
        if all(at is None or at < before for at in ended):
            return True
    return False


def _busy_order(busy: Busy) -> tuple[str, int]:
    return busy.worker, busy.job_id


def all_queue_workers() -> list[Workers]:
    """Every queue a job kind is routed to, with the workers serving it."""
    queues = sorted({queue_of(kind) for kind in CATALOG} - {None})
    return [queue_workers(queue) for queue in queues]
