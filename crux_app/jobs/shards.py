"""A job's shards in PostgreSQL: planning them, claiming one, keeping its lease, ending the job.

The first task of a job stores its planned batches as shards (a shard = a run of batches);
every task of the job then claims shards with ``SELECT ... FOR UPDATE SKIP LOCKED`` (a pending
shard, or a running one whose lease is older than ``JOB_LEASE_GRACE_SECONDS``). Every write of
a claimed shard names the claim's token, so a worker that lost its lease (taken over after a
stall) changes nothing any more. The job ends when its last shard does, under the job row's
lock, in one place: each state change is saved through the model.
"""

from __future__ import annotations

import json
import math
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from crux_app.models import Job, JobShard
from crux_app.models.job_usage import add_model_usage

from .usage import UsageByRole, prompt_and_completion


def item_key(item: Any) -> str:
    """An item's identity across plans: its JSON text (a NamedTuple of ints, an int, a str)."""
    return json.dumps(item, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Started:
    job: Job
    planned_now: bool  # this call stored the shards (its task sends tasks for the others)


def plan_job(job: Job, batches: Sequence[Sequence[Any]], note: str = "") -> Started | None:
    """Store the job's shards if no task did yet, and start its attempt if it is pending.

    None when the job finished meanwhile (a task for a finished job changes nothing)."""
    with transaction.atomic():
        locked = Job.objects.select_for_update().get(pk=job.pk)
        if locked.is_finished:
            return None
        planned_now = not locked.shards.exists() and bool(batches)
        if planned_now:
            _store_shards(locked, batches)
            locked.total = sum(len(batch) for batch in batches)
            locked.done = 0
            locked.plan_note = note
            locked.save(update_fields=["total", "done", "plan_note"])
        elif not locked.shards.exists():
            locked.plan_note = note
            locked.save(update_fields=["plan_note"])
        if locked.state == Job.State.PENDING:
            locked.start_attempt()
    job.refresh_from_db()
    return Started(job, planned_now)


def shard_cuts(n_batches: int, max_shards: int) -> list[tuple[int, int]]:
    """(first, end) batch ranges of the shards: at most ``max_shards`` runs of equal length."""
    per_shard = max(1, math.ceil(n_batches / max(1, max_shards)))
    return [(i, min(i + per_shard, n_batches)) for i in range(0, n_batches, per_shard)]


def _store_shards(job: Job, batches: Sequence[Sequence[Any]]) -> None:
    rows = []
    for index, (first, end) in enumerate(shard_cuts(len(batches), settings.JOB_MAX_SHARDS)):
        stored = [[json.loads(item_key(item)) for item in batch] for batch in batches[first:end]]
        rows.append(
            JobShard(
                job=job,
                index=index,
                first_batch=first,
                batches=stored,
                size=sum(len(batch) for batch in stored),
                todo=list(range(len(stored))),
            )
        )
    JobShard.objects.bulk_create(rows)


def _stale_before() -> timezone.datetime:
    return timezone.now() - timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS)


def claimable(job_id: int):  # noqa: ANN201 (a queryset of JobShard)
    """Shards a worker may take: pending, or running under a lease older than the grace."""
    stale = Q(state=JobShard.State.RUNNING, heartbeat_at__lt=_stale_before())
    return JobShard.objects.filter(Q(state=JobShard.State.PENDING) | stale, job_id=job_id)


def claim_shard(job_id: int, worker: str) -> JobShard | None:
    """Take the job's next claimable shard under a new lease; None when there is none, or the
    job is not running (a cancel asked for ends its claimable shards cancelled)."""
    with transaction.atomic():
        free = claimable(job_id).select_for_update(skip_locked=True, of=("self",))
        # The job's state is read in the same statement (its row is not locked: SKIP LOCKED
        # must not skip every shard while another worker counts a batch on the job's row).
        shard = (
            free.filter(job__state=Job.State.RUNNING, job__cancel_requested=False)
            .order_by("index")
            .first()
        )
        if shard is None:
            job = Job.objects.filter(pk=job_id).values("state", "cancel_requested").first()
            if job is not None and job["state"] == Job.State.RUNNING and job["cancel_requested"]:
                for cancelled in free.order_by("index"):
                    _release(cancelled, JobShard.State.CANCELLED)
            return None
        was_stalled = shard.state == JobShard.State.RUNNING
        shard.stalled_worker = shard.worker if was_stalled else ""
        shard.state = JobShard.State.RUNNING
        shard.worker = worker
        shard.lease_token = str(uuid.uuid4())
        shard.heartbeat_at = timezone.now()
        shard.resume_sent_at = None
        shard.save(update_fields=[*CLAIM_FIELDS])
        Job.objects.filter(pk=job_id).update(worker=worker)
    return shard


# What a claim changes (a shard's planned batches are never written again).
CLAIM_FIELDS = (
    *("stalled_worker", "state", "worker"),
    *("lease_token", "heartbeat_at", "resume_sent_at"),
)


def _release(shard: JobShard, state: str) -> None:
    shard.state = state
    shard.lease_token = ""
    shard.finished_at = timezone.now()
    shard.save(update_fields=["state", "lease_token", "finished_at"])


def _held(shard: JobShard):  # noqa: ANN202 (a queryset matching the shard while its lease holds)
    return JobShard.objects.filter(
        pk=shard.pk, lease_token=shard.lease_token, state=JobShard.State.RUNNING
    )


def renew_lease(shard: JobShard) -> bool:
    """Refresh the lease's heartbeat; False when the lease is gone (taken over or ended)."""
    return bool(_held(shard).update(heartbeat_at=timezone.now()))


@dataclass(frozen=True)
class Recorded:
    """What counting a batch found: whether the lease held (its truth value), and whether the
    job still runs with no cancel asked for (read by the same statement that counted it)."""

    held: bool
    wanted: bool = True

    def __bool__(self) -> bool:
        return self.held


def record_batch(
    shard: JobShard,
    position: int,
    counts: Mapping[str, int],
    note: str = "",
    *,
    usage: UsageByRole | None = None,
    end_if_done: bool = False,
) -> Recorded:
    """Count a done batch (its items to the shard, its items and the model calls' ``usage`` to
    the job: tokens to its totals, each role's to its row) in one transaction of two
    statements (three when a model was called); false when the lease is gone (the new holder
    counts it). With ``end_if_done`` the shard's last batch also ends it succeeded (unless a
    batch of it failed), saving ``end_shard``'s statement."""
    todo = [p for p in shard.todo if p != position]
    merged = Counter(dict(shard.counts))
    merged.update(counts)
    notes = [*shard.notes, note] if note and note not in shard.notes else shard.notes
    size = len(shard.batches[position])
    now = timezone.now()
    ends = end_if_done and not todo and not shard.failed_batches
    ending = {"state": JobShard.State.SUCCEEDED, "lease_token": "", "finished_at": now}
    with transaction.atomic():
        updated = _held(shard).update(
            todo=todo,
            done=F("done") + size,
            counts=[[name, n] for name, n in merged.items()],
            notes=notes,
            heartbeat_at=now,
            **(ending if ends else {}),
        )
        wanted = True
        if updated:
            usage = usage or {}
            prompt, completion = prompt_and_completion(usage)
            progress = {
                "done": F("done") + size,
                "prompt_tokens": F("prompt_tokens") + prompt,
                "completion_tokens": F("completion_tokens") + completion,
            }
            job = Job.objects.filter(pk=shard.job_id)
            # Filtered on the job still running unasked to stop: one statement counts the
            # batch and tells the runner whether to go on (a batch stored is counted anyway).
            running = job.filter(state=Job.State.RUNNING, cancel_requested=False)
            wanted = bool(running.update(**progress))
            if not wanted:
                job.update(**progress)
            add_model_usage(shard.job_id, usage)
    if updated:
        shard.todo, shard.counts, shard.notes = todo, [[k, v] for k, v in merged.items()], notes
        shard.done += size
        if ends:
            shard.state, shard.lease_token, shard.finished_at = JobShard.State.SUCCEEDED, "", now
    return Recorded(held=bool(updated), wanted=wanted)


def record_failed_batch(shard: JobShard, batch_index: int) -> bool:
    """Note a batch (job-wide index) that failed every try; False when the lease is gone."""
    failed = sorted({*shard.failed_batches, batch_index})
    if _held(shard).update(failed_batches=failed):
        shard.failed_batches = failed
        return True
    return False


def end_shard(shard: JobShard, state: str) -> bool:
    """End the shard in ``state`` and drop its lease; False when the lease was gone already."""
    return bool(_held(shard).update(state=state, lease_token="", finished_at=timezone.now()))


def finish_job_if_done(job_id: int) -> Job | None:
    """End the job once every shard ended (the job is saved through the model); its state:
    cancelled if asked, failed if a batch failed every try, else succeeded. None while a
    shard is still pending or running, or when the job had finished already."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.state != Job.State.RUNNING:
            return None
        shards = list(JobShard.objects.filter(job_id=job_id))
        if any(not shard.is_finished for shard in shards):
            return None
        state, message = job_outcome(job, shards)
        job.end(state, message)
    return job


def job_outcome(job: Job, shards: Sequence[JobShard]) -> tuple[str, str]:
    """The final state and message of a job whose shards all ended."""
    counts: Counter[str] = Counter()
    notes: list[str] = []
    for shard in sorted(shards, key=lambda s: s.index):
        for name, n in shard.counts:
            counts[name] += n
        notes += [note for note in shard.notes if note not in notes]
    failed = sorted(i for shard in shards for i in shard.failed_batches)
    n_batches = sum(len(shard.batches) for shard in shards)
    parts = [*(f"{name} {n}" for name, n in counts.items()), *notes, job.plan_note]
    summary = ", ".join(filter(None, parts))
    failed_text = f"{len(failed)} of {n_batches} batches failed" if failed else ""
    if any(shard.state == JobShard.State.CANCELLED for shard in shards):
        stopped = f"cancelled after {job.done} of {job.total} items (stored results kept)"
        return Job.State.CANCELLED, "; ".join(filter(None, [stopped, failed_text, summary]))
    if failed or any(shard.state == JobShard.State.FAILED for shard in shards):
        return Job.State.FAILED, "; ".join(filter(None, [failed_text, summary]))
    return Job.State.SUCCEEDED, summary


def abort_job(job_id: int, message: str) -> bool:
    """Fail a job at once (a time limit, a planning error): every shard not done ends failed and
    loses its lease, so workers still running one stop at their next batch. False when the job
    had finished already."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.is_finished:
            return False
        JobShard.objects.filter(job_id=job_id).exclude(
            state__in=[JobShard.State.SUCCEEDED, JobShard.State.CANCELLED]
        ).update(state=JobShard.State.FAILED, lease_token="", finished_at=timezone.now())
        job.end(Job.State.FAILED, message)
    return True


def reopen_unfinished_shards(job: Job) -> int:
    """For a retry: every shard that did not succeed is pending again (its done batches kept)."""
    return (
        JobShard.objects.filter(job=job)
        .exclude(state=JobShard.State.SUCCEEDED)
        .update(
            state=JobShard.State.PENDING,
            lease_token="",
            worker="",
            heartbeat_at=None,
            failed_batches=[],
            stalled_worker="",
            resume_sent_at=None,
            finished_at=None,
        )
    )


def has_work_left(job_id: int) -> bool:
    """Whether a task for the job would find a shard to claim (or the job is not planned)."""
    shards = JobShard.objects.filter(job_id=job_id)
    return not shards.exists() or claimable(job_id).exists()
