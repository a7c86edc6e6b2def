"""What a job's task does around its work: progress, per-batch retries, errors, final state.

Tasks stay thin: they plan batches of items and hand ``run_batches`` a function that processes
one batch (load, call a method, store). Work must be idempotent, because a retried job or a
redelivered task runs every batch again and only the missing items may cost anything.
"""

from __future__ import annotations

import logging
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TypeVar

from django.conf import settings

from crux_app.data_version import bump
from crux_app.models import Job
from crux_app.models.job import JobCancelled
from crux_app.url_credentials import mask_credentials

logger = logging.getLogger(__name__)

T = TypeVar("T")
BatchProcessor = Callable[[Sequence[T]], Mapping[str, int] | None]

TRACEBACK_EXCERPT_CHARS = 2000
# Callables returning (prompt, completion) tokens spent since their last call; the model
# backends register theirs from their app's ready().
UsageSource = Callable[[], tuple[int, int]]
_usage_sources: list[UsageSource] = []


def register_usage_source(take: UsageSource) -> None:
    if take not in _usage_sources:
        _usage_sources.append(take)


def _record_usage(job: Job) -> None:
    prompt = completion = 0
    for take in _usage_sources:
        p, c = take()
        prompt, completion = prompt + p, completion + c
    if prompt or completion:
        job.add_tokens(prompt, completion)


def traceback_excerpt(exc: BaseException, limit: int = TRACEBACK_EXCERPT_CHARS) -> str:
    """The last ``limit`` characters of the formatted traceback: the frames nearest the fault."""
    text = "".join(traceback.format_exception(exc))
    return text if len(text) <= limit else "..." + text[-limit:]


def job_to_run(job_id: int) -> Job | None:
    """The job a task was sent for; None when it was deleted or cancelled before a worker got
    to it (the task then does nothing)."""
    job = Job.objects.filter(pk=job_id).first()
    if job is not None and job.state == Job.State.CANCELLED:
        logger.info("job #%s was cancelled before it started: not run", job_id)
        return None
    return job


def run_batches(
    job: Job,
    batches: Sequence[Sequence[T]],
    process: BatchProcessor,
    *,
    retries: int | None = None,
    note: str = "",
) -> Job:
    """Process ``batches`` in order with live progress; finish the job succeeded, failed or
    cancelled.

    Model tokens the backends spent are added to the job after every batch.
    ``process`` may return counts (e.g. ``{"generated": 2, "skipped": 1}``); their sums become
    the job's message. A batch that raises is recorded in ``Job.errors`` (message, traceback
    excerpt, batch index, try number) and tried again up to ``retries`` more times; a batch
    that never succeeds fails the job, but later batches still run. ``note`` (e.g. what the
    plan left out) ends the final message, written with the final state in one update, so a
    page that sees the job finished sees the whole message.

    A cancel asked for (``Job.cancel_requested``) is seen before each batch: the job then ends
    cancelled, what earlier batches stored is kept. A job cancelled before it started is left
    as it is and nothing runs.
    """
    retries = settings.JOB_BATCH_RETRIES if retries is None else retries
    total = sum(len(batch) for batch in batches)
    try:
        job.mark_running(total=total)
    except JobCancelled:
        return job
    job.set_done(0)
    # A worker killed between a batch's commit and its bump left pages cached on the old
    # version: the retry bumps before anything else.
    bump(job.collection_id)
    _record_usage(job)  # planning's model calls (a capability probe, say) count too
    done = 0
    failed_batches: list[int] = []
    counts: Counter[str] = Counter()
    cancelled = False
    for index, batch in enumerate(batches):
        if cancelled := job.cancel_is_requested():
            break
        result = _process_with_retries(job, index, batch, process, retries)
        bump(job.collection_id)  # after the batch committed what it stored (even if it failed)
        _record_usage(job)
        if result is None:
            failed_batches.append(index)
            continue
        counts.update(result)
        done += len(batch)
        job.set_done(done)  # absolute, so a re-run never counts an item twice
    summary = ", ".join([*(f"{name} {n}" for name, n in counts.items()), *filter(None, [note])])
    failed = f"{len(failed_batches)} of {len(batches)} batches failed" if failed_batches else ""
    if cancelled:
        stopped = f"cancelled after {done} of {total} items (stored results kept)"
        job.finish(Job.State.CANCELLED, "; ".join(filter(None, [stopped, failed, summary])))
    elif failed_batches:
        job.finish(Job.State.FAILED, "; ".join(filter(None, [failed, summary])))
    else:
        job.finish(Job.State.SUCCEEDED, summary)
    return job


def _process_with_retries(
    job: Job, index: int, batch: Sequence[T], process: BatchProcessor, retries: int
) -> Mapping[str, int] | None:
    """The batch's counts, or None when every try raised (each failure is recorded)."""
    for attempt in range(1, retries + 2):
        try:
            return process(batch) or {}
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
        job.finish(Job.State.FAILED, str(exc))


def refused(job: Job, check: Callable[[], object]) -> bool:
    """Run a job's precondition (a model server's capability, say); fail the job when it raises.

    True when the job was refused: its message is the check's error, nothing ran.
    """
    with fail_job_on_error(job):
        check()
        return False
    return True
