"""What a job's task does around its work: shards, progress, per-batch retries, errors, the
final state.

Tasks stay thin: they plan batches of items and hand ``run_batches`` a function that processes
one batch (load, call a method, store). The runner cuts the plan into shards that every worker
of the job's queue claims (crux_app.jobs.shards), each under a lease (crux_app.jobs.lease).
Work must be idempotent: a shard taken over from a killed worker runs its unfinished batch
again, and only the missing items may cost anything.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TypeVar

from celery import current_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from crux_app.data_version import bump, bump_recorded, recording
from crux_app.models import Job, JobShard
from crux_app.models.job import JobCancelled
from crux_app.url_credentials import mask_credentials

from .catalog import get_kind
from .dispatch import fan_out, in_worker_task, registered_task
from .lease import Lease, soft_time_limit
from .line import queue_of, take_moved_up, taken
from .shards import (
    abort_job,
    claim_shard,
    end_shard,
    finish_job_if_done,
    has_work_left,
    item_key,
    plan_job,
    record_batch,
    record_failed_batch,
)
from .time_limits import limits_for, seconds_left, soft_limit_message
from .usage import ModelUsage, UsageByRole, merged

logger = logging.getLogger(__name__)

T = TypeVar("T")
# A batch's counts ({"judged": 8}), a text for the job's message, or None (nothing to say).
BatchResult = Mapping[str, int] | str | None
BatchProcessor = Callable[[Sequence[T]], BatchResult]

TRACEBACK_EXCERPT_CHARS = 2000
# Callables returning the model calls' usage per role since their last call; the model
# backends register theirs from their app's ready().
UsageSource = Callable[[], UsageByRole]
_usage_sources: list[UsageSource] = []


def register_usage_source(take: UsageSource) -> None:
    if take not in _usage_sources:
        _usage_sources.append(take)


def _take_usage() -> dict[str, ModelUsage]:
    """The model calls and tokens per role the backends spent since the last take."""
    return merged(take() for take in _usage_sources)


def _record_usage(job: Job, usage: UsageByRole | None = None) -> None:
    usage = _take_usage() if usage is None else usage
    if usage:
        job.add_usage(usage)


def traceback_excerpt(exc: BaseException, limit: int = TRACEBACK_EXCERPT_CHARS) -> str:
    """The last ``limit`` characters of the formatted traceback: the frames nearest the fault."""
    text = "".join(traceback.format_exception(exc))
    return text if len(text) <= limit else "..." + text[-limit:]


def job_to_run(job_id: int) -> Job | None:
    """The job a task was sent for; None when the task has nothing to do: the job was deleted,
    is finished (cancelled before a worker got to it, or a task delivered again after it ended:
    it is left unchanged), or every shard is done or held by a live lease (a task delivered
    twice while the first runs). On a worker, a job a researcher moved up its queue runs first
    (``run_moved_up_first``)."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        return None
    if in_worker_task() and run_moved_up_first(job):
        job.refresh_from_db()
    taken(job)
    if job.is_finished:
        logger.info("job #%s is %s: task not run", job_id, job.state)
        return None
    if job.state == Job.State.RUNNING and not has_work_left(job_id):
        finish_job_if_done(job_id)  # a worker killed between its last shard and the job's end
        logger.info("job #%s: every shard is done or held by a live worker: task not run", job_id)
        return None
    return job


_inline = threading.local()  # set while a moved-up job runs inside another job's task


def run_moved_up_first(job: Job) -> bool:
    """Run the job a researcher moved up the queue of ``job``'s kind, if one waits ahead of
    ``job``: inside this task, by its kind's task function (the broker keeps tasks in the order
    they were sent, so "run next" is honoured by whichever task a worker of the queue takes
    next). Its own task, delivered later, finds it finished. True when one ran."""
    queue = queue_of(job.kind)
    if queue is None or getattr(_inline, "running", False):
        return False
    moved = take_moved_up(queue, job.pk)
    if moved is None:
        return False
    kind = Job.objects.filter(pk=moved).values_list("kind", flat=True).first()
    if kind is None:
        return False
    logger.info("job #%s was moved up: it runs before job #%s", moved, job.pk)
    _inline.running = True
    try:
        registered_task(get_kind(kind).task_name).run(moved)
    except Exception:  # its failure must not cost the job this task was sent for its turn
        logger.exception("moved-up job #%s failed inside job #%s's task", moved, job.pk)
    finally:
        _inline.running = False
    return True


def worker_name() -> str:
    """Who holds a lease: the Celery worker's node name, or this host and process (a command)."""
    request = getattr(current_task, "request", None)
    return getattr(request, "hostname", None) or f"{socket.gethostname()} (pid {os.getpid()})"


def run_batches(
    job: Job,
    batches: Sequence[Sequence[T]],
    process: BatchProcessor,
    *,
    retries: int | None = None,
    note: str = "",
    raise_errors: bool = False,
) -> Job:
    """Run the job's share of ``batches`` with live progress; the task that ends its last
    shard ends the job succeeded, failed or cancelled.

    The first call for a job stores ``batches`` as shards (runs of batches, at most
    JOB_MAX_SHARDS) and, on a worker, sends more tasks so that idle workers of its queue join
    in; every call then claims shards until none is left. Items are matched to the stored plan
    by their JSON text (``shards.item_key``): a planned item missing from ``batches`` now (a
    judge's item stored meanwhile) is done. The model calls and tokens the backends spent, per
    role, are added to the job after every batch. ``process`` may return counts (e.g.
    ``{"generated": 2}``), summed over all shards into the job's message, or a text that ends
    it (an import's summary). A batch that raises is recorded in ``Job.errors`` (message,
    traceback excerpt, batch index, try number) and tried again up to ``retries`` more times; a
    batch that never succeeds fails the job, but later batches still run. ``note`` (what the
    first plan left out) ends the final message. With ``raise_errors`` a batch's error is
    raised (no retry), for ``fail_job_on_error`` to fail the job with its message (an atomic
    one-batch job: an import).

    A cancel asked for (``Job.cancel_requested``) is seen before each batch of every shard: the
    job then ends cancelled, what earlier batches stored is kept. A finished job (cancelled
    before it started, or a task delivered after its end) is left as it is and nothing runs.
    At the attempt's soft time limit the job fails with that error (stored results kept).
    """
    retries = settings.JOB_BATCH_RETRIES if retries is None else retries
    started = plan_job(job, batches, note)
    if started is None:
        job.refresh_from_db()
        return job
    if started.planned_now:
        fan_out(job, job.shards.count())
    # A worker killed between a batch's commit and its bump left pages cached on the old
    # version: the retry bumps before anything else.
    bump(job.collection_id)
    _record_usage(job)  # planning's model calls (a capability probe, say) count too
    current = {item_key(item): item for batch in batches for item in batch}
    left = seconds_left(job.kind, job.running_since, timezone.now())
    worker = worker_name()
    try:
        with soft_time_limit(left.soft_s if left else None):
            while (shard := claim_shard(job.pk, worker)) is not None:
                _run_shard(job, shard, current, process, retries, raise_errors)
    except SoftTimeLimitExceeded:
        _stop_at_soft_limit(job)
    finish_job_if_done(job.pk)
    job.refresh_from_db()
    return job


def _stop_at_soft_limit(job: Job) -> None:
    limits = limits_for(job.kind)
    message = soft_limit_message(job.kind, limits)
    if abort_job(job.pk, message):
        job.add_error(message, job_attempt=job.attempts, time_limit="soft")


def _run_shard(
    job: Job,
    shard: JobShard,
    current: Mapping[str, T],
    process: BatchProcessor,
    retries: int,
    raise_errors: bool = False,
) -> None:
    """Run the shard's batches not done yet under its lease, then end it (unless it was lost).

    Per batch done: the batch's own work, then one bump and one transaction that counts it,
    adds its tokens, renews the lease and reads whether the job still wants the next batch (the
    claim read it for the first); the last one ends the shard too."""
    stopped = False
    check_job = False  # whether the job must be asked before the next batch
    with Lease(shard) as lease:
        for position in list(shard.todo):
            if lease.lost.is_set() or (check_job and not _still_wanted(job)):
                stopped = True
                break
            left = seconds_left(job.kind, job.running_since, timezone.now())
            if left is not None and left.soft_s <= 0:  # where no timer could be set
                raise SoftTimeLimitExceeded("soft time limit")
            keys = map(item_key, shard.batches[position])
            batch = [current[key] for key in keys if key in current]
            index = shard.first_batch + position
            # A batch whose items were all stored meanwhile is done without calling anyone.
            with recording() as touched:
                if batch and raise_errors:
                    result = process(batch) or {}
                elif batch:
                    result = _process_with_retries(job, index, batch, process, retries)
                else:
                    result = {}
            # After the batch committed what it stored (even if it failed): the topics its
            # writes named, or the whole collection when they named none.
            bump_recorded(job.collection_id, touched)
            usage = _take_usage()
            if result is None:
                _record_usage(job, usage)
                check_job = True
                if not record_failed_batch(shard, index):
                    return  # the lease is gone: its new holder runs the shard
                continue
            counts, text = ({}, result) if isinstance(result, str) else (result, "")
            recorded = record_batch(shard, position, counts, text, usage=usage, end_if_done=True)
            if not recorded:
                _record_usage(job, usage)  # spent all the same
                return
            lease.renewed()
            check_job = not recorded.wanted
    if lease.lost.is_set() or shard.is_finished:
        return  # lost, or ended by its last batch's count
    if stopped:
        end_shard(shard, JobShard.State.CANCELLED)
    else:
        end_shard(shard, JobShard.State.FAILED if shard.todo else JobShard.State.SUCCEEDED)


def _still_wanted(job: Job) -> bool:
    """Whether the job still runs with no cancel asked for (one query, before each batch)."""
    wanted = Job.objects.filter(pk=job.pk, state=Job.State.RUNNING, cancel_requested=False)
    if wanted.exists():
        return True
    job.cancel_is_requested()
    return False


def _process_with_retries(
    job: Job, index: int, batch: Sequence[T], process: BatchProcessor, retries: int
) -> BatchResult:
    """The batch's counts or text, or None when every try raised (each failure is recorded)."""
    for attempt in range(1, retries + 2):
        try:
            return process(batch) or {}
        except SoftTimeLimitExceeded:
            raise  # the attempt's time is up: not this batch's fault, no retry
        except Exception as exc:  # recorded on the job, which is where users look for failures
            logger.warning(
                "job #%s batch %s try %s failed: %s",
                *(job.pk, index, attempt, mask_credentials(str(exc))),
            )
            job.add_error(
                f"{type(exc).__name__}: {exc}",
                batch=index,
                try_number=attempt,
                job_attempt=job.attempts,
                traceback=traceback_excerpt(exc),
            )
    return None


@contextmanager
def fail_job_on_error(job: Job) -> Iterator[None]:
    """Record an error raised outside the batches (bad parameters, planning) and fail the job.

    The exception is not re-raised: the Job row is where failures are reported, and a raised
    task error would only be logged by the worker.
    """
    try:
        yield
    except JobCancelled:
        job.refresh_from_db()  # cancelled before it started: it stays so
    except Exception as exc:
        logger.warning("job #%s failed: %s", job.pk, mask_credentials(str(exc)))
        job.add_error(
            f"{type(exc).__name__}: {exc}",
            job_attempt=job.attempts,
            traceback=traceback_excerpt(exc),
        )
        abort_job(job.pk, str(exc))  # its shards too: other workers stop at their next batch
        job.refresh_from_db()


def refused(job: Job, check: Callable[[], object]) -> bool:
    """Run a job's precondition (a model server's capability, say); fail the job when it raises.

    True when the job was refused: its message is the check's error, nothing ran.
    """
    with fail_job_on_error(job):
        check()
        return False
    return True
