"""What a job's page says when a shard stalled (its worker's heartbeat stopped: killed, or its
machine froze) and nobody took it over yet: which worker held it, whether a free worker of the
job's queue can resume it now or which jobs hold them all, and where the job stands in the
queue's line (crux_app.jobs.line). No promise that "another worker resumes it" when none can.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Min

from crux_app.models import Job

from .line import place_in_line, queue_of, stalled_shards
from .names import job_title
from .queue_workers import Workers, queue_workers
from .shard_status import ShardsStatus, Stalled

HIDDEN_JOB = "a job of another workspace"  # a busy job the asking account may not see


@dataclass(frozen=True)
class BusyJob:
    """A job holding a worker slot of the stalled job's queue."""

    worker: str
    job_id: int | None  # None: a job the asking account may not see (nor its title)
    title: str


@dataclass(frozen=True)
class StallReport:
    queue: str
    stalled: list[Stalled]  # shards whose worker stopped, not taken over yet
    workers: Workers  # who serves the queue now
    busy: list[BusyJob]  # what holds its slots
    position: int | None  # the job's place in the queue's line (None: not in line yet)
    resume_queued_at: datetime | None  # when the one task to resume it was queued

    @property
    def serving_text(self) -> str:
        """Whether a worker of the queue can take the stalled shard now."""
        if not self.workers.slots:
            return (
                f"No worker serves the {self.queue} queue now (none reported in the last "
                "minute): the job waits until one starts."
            )
        if self.workers.free:
            return (
                f"{self.workers.free} worker slot{'s' if self.workers.free != 1 else ''} of the "
                f"{self.queue} queue {'are' if self.workers.free != 1 else 'is'} free: one takes "
                "the shard over with the resume task."
            )
        return (
            f"No free worker serves the {self.queue} queue now: all {self.workers.slots} "
            f"slot{'s are' if self.workers.slots != 1 else ' is'} busy; the job resumes when "
            "one frees up."
        )

    @property
    def line_text(self) -> str:
        """Where the job stands in line, and whether its resume task is queued."""
        if self.resume_queued_at is None:
            return "A task to resume it is queued at the next sweep of a live worker."
        ahead = (self.position or 1) - 1
        place = (
            f"position {self.position} in the {self.queue} queue's line "
            f"({ahead} job{'s' if ahead != 1 else ''} ahead)"
            if self.position
            else f"in the {self.queue} queue"
        )
        queued = self.resume_queued_at.strftime("%Y-%m-%d %H:%M:%S")
        return f"One task to resume it was queued at {queued}: {place}."

    @property
    def short_text(self) -> str:
        """The Jobs list's words."""
        workers = ", ".join(sorted({s.worker for s in self.stalled}))
        if not self.workers.slots:
            serving = f"no {self.queue} worker"
        elif self.workers.free:
            serving = f"a free {self.queue} worker resumes it"
        else:
            serving = f"no free {self.queue} worker"
        place = f"; position {self.position} on {self.queue}" if self.position else ""
        return f"stalled ({workers} stopped): {serving}{place}"


def stall_report(
    job: Job, shards: ShardsStatus | None, *, who: object | None = None
) -> StallReport | None:
    """The report for a running job with a stalled shard nobody took over (else None); the
    busy jobs ``who`` may not see (another workspace's) are named only as such."""
    waiting = [s for s in shards.stalled if not s.resumed_on] if shards else []
    queue = queue_of(job.kind)
    if not waiting or queue is None:
        return None
    workers = queue_workers(queue)
    others = Job.objects.filter(pk__in=[b.job_id for b in workers.holding])
    titles = {other.pk: job_title(other) for other in others}
    seen = (
        titles.keys() if who is None else set(others.visible_to(who).values_list("pk", flat=True))
    )
    busy = [
        BusyJob(b.worker, b.job_id, titles.get(b.job_id, f"#{b.job_id}"))
        if b.job_id in seen or b.job_id not in titles
        else BusyJob(b.worker, None, HIDDEN_JOB)
        for b in workers.holding
    ]
    queued = stalled_shards().filter(job=job).aggregate(at=Min("resume_sent_at"))["at"]
    place = place_in_line(job)
    return StallReport(
        queue=queue,
        stalled=waiting,
        workers=workers,
        busy=busy,
        position=place[1] if place else None,
        resume_queued_at=queued,
    )


def stall_texts(jobs: list[Job], positions: dict[int, int]) -> dict[int, str]:
    """job id -> the Jobs list's words for the running ones of ``jobs`` with a stalled shard
    nobody took over (a query, and one per queue with such a job)."""
    running = [job for job in jobs if job.state == Job.State.RUNNING]
    stalled: dict[int, set[str]] = {}
    rows = stalled_shards().filter(job__in=running).values_list("job_id", "worker")
    for job_id, worker in rows:
        stalled.setdefault(job_id, set()).add(worker)
    workers: dict[str, Workers] = {}
    texts: dict[int, str] = {}
    for job in running:
        if job.pk not in stalled or (queue := queue_of(job.kind)) is None:
            continue
        if queue not in workers:
            workers[queue] = queue_workers(queue)
        report = StallReport(
            queue=queue,
            stalled=[Stalled(0, worker, 0.0) for worker in sorted(stalled[job.pk])],
            workers=workers[queue],
            busy=[],
            position=positions.get(job.pk),
            resume_queued_at=None,
        )
        texts[job.pk] = report.short_text
    return texts
