"""What a running job's page says about its shards: how many are done, running (on which
workers) and waiting, and which stalled: "stalled on worker A, resuming on worker B" once
another worker took the shard over, or how long its worker has been silent (what happens next,
crux_app.jobs.stall)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from crux_app.models import Job, JobShard


@dataclass(frozen=True)
class Stalled:
    index: int
    worker: str  # the worker whose heartbeat stopped
    silent_s: float  # since its last heartbeat
    resumed_on: str = ""  # the worker that took it over ("": none yet)

    @property
    def text(self) -> str:
        if self.resumed_on:
            stalled = f"shard {self.index} stalled on {self.worker}"
            return f"{stalled}, resuming on worker {self.resumed_on}"
        # No promise of who resumes it: crux_app.jobs.stall says whether a free worker can.
        return (
            f"shard {self.index} stalled: worker {self.worker} held it and its heartbeat "
            f"stopped {self.silent_s:.0f} s ago"
        )


@dataclass(frozen=True)
class ShardsStatus:
    total: int
    done: int  # ended (succeeded, failed or cancelled)
    running: int
    waiting: int
    workers: list[str] = field(default_factory=list)  # holding a live lease
    stalled: list[Stalled] = field(default_factory=list)
    grace_s: float = 0.0

    @property
    def text(self) -> str:
        on = f" on {', '.join(self.workers)}" if self.workers else ""
        return (
            f"{self.total} shard{'s' if self.total != 1 else ''}: {self.done} done, "
            f"{self.running} running{on}, {self.waiting} waiting"
        )


def shards_status(job: Job, now: datetime | None = None) -> ShardsStatus | None:
    """A running job's shards (None for other jobs and a job not cut into shards yet)."""
    if job.state != Job.State.RUNNING:
        return None
    shards = list(JobShard.objects.filter(job=job).defer("batches"))
    if not shards:
        return None
    now = now or timezone.now()
    grace = settings.JOB_LEASE_GRACE_SECONDS
    workers: list[str] = []
    stalled: list[Stalled] = []
    running = 0
    for shard in shards:
        if shard.state != JobShard.State.RUNNING:
            continue
        running += 1
        silent = (now - shard.heartbeat_at).total_seconds() if shard.heartbeat_at else 0.0
        if silent > grace:
            stalled.append(Stalled(shard.index, shard.worker, silent))
            continue
        if shard.stalled_worker:
            stalled.append(Stalled(shard.index, shard.stalled_worker, 0.0, shard.worker))
        if shard.worker not in workers:
            workers.append(shard.worker)
    return ShardsStatus(
        total=len(shards),
        done=sum(shard.is_finished for shard in shards),
        running=running,
        waiting=sum(shard.state == JobShard.State.PENDING for shard in shards),
        workers=workers,
        stalled=stalled,
        grace_s=grace,
    )
