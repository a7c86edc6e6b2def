"""What a job's page says beside its row: the queue it waits on and its place in that queue's
line (crux_app.jobs.line), who serves that queue, the time left at the throughput so far, and
the page its results fill.

What is ahead of a waiting job is also what occupies the workers of its queue: the jobs running
on the queue, and the jobs of other queues that a worker consuming both runs now (``Job.worker``;
workers report their queues in ``WorkerHeartbeat``, crux_app.jobs.heartbeat).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from crux_app.models import Job

from .catalog import ResultsLink, results_link
from .line import kinds_on_queue, line_positions, place_in_line, queue_of
from .line import task_queue as task_queue  # where tests and pages import it from
from .queue_workers import Workers, queue_workers
from .shard_status import ShardsStatus, shards_status
from .stall import StallReport, stall_report


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
    stall: StallReport | None = None  # a running job whose shard's worker stopped


def queue_place(job: Job, with_workers: bool = False) -> QueuePlace | None:
    """A pending job's place in its queue's line (None when it is not pending or its kind
    unknown); ``with_workers`` also says who serves the queue and how busy they are."""
    if job.state != Job.State.PENDING:
        return None
    found = place_in_line(job)
    if found is None:
        return None
    queue, position = found
    running = Job.objects.filter(kind__in=kinds_on_queue(queue), state=Job.State.RUNNING).count()
    workers = queue_workers(queue) if with_workers else None
    return QueuePlace(queue=queue, position=position, running=running, workers=workers)


def queue_positions(jobs: Iterable[Job]) -> dict[int, int]:
    """job id -> place in its queue's line, for the waiting ones of ``jobs`` (pending, or
    stalled waiting to resume)."""
    return line_positions(list(jobs))


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


def job_status(job: Job, *, who: object | None = None) -> JobStatus:
    """The job page's state; ``who`` (the asking account or request) names only the jobs it
    may see among those holding the queue's workers (None: every one, for commands)."""
    shards = shards_status(job)
    return JobStatus(
        queue=queue_of(job.kind),
        place=queue_place(job, with_workers=True),
        estimate=estimate(job),
        results=results_link(job),
        shards=shards,
        stall=stall_report(job, shards, who=who),
    )
