"""What every worker does beside its tasks, each WORKER_HEARTBEAT_SECONDS (from its heartbeat
thread, crux_app.jobs.worker_beat), so no beat process is needed:

- the outbox: send the tasks of jobs started while the broker did not answer;
- stalled shards: for a job with a shard whose lease is older than JOB_LEASE_GRACE_SECONDS (its
  worker was killed), send one task, which another worker takes the shard over with; none
  more while it waits in the queue behind busy workers (``resume_stalled_shards``);
- hard time limits: fail a running job past its kind's hard limit (a prefork worker's task was
  killed by Celery; a solo worker's is abandoned);
- a running job whose shards all ended (its last worker died before ending it) is ended.

Several workers may sweep at once: each job's outbox entry is taken under a row lock
(SKIP LOCKED), and so is a stalled job's row while one sweep sends its resume.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import uuid
from django.conf import settings
from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from crux_app.models import Job, JobShard

from .dispatch import BROKER_ERRORS, send_job_task
from .line import queue_of, stalled_shards
from .queue_workers import idle_since
from .shards import abort_job, finish_job_if_done
from .time_limits import hard_limit_message, limits_for, seconds_left

logger = logging.getLogger(__name__)


def sweep() -> dict[str, int]:
    """One sweep; how many jobs it sent, resumed, stopped at their hard limit and ended."""
    return {
        "sent": send_outbox(),
        "resumed": resume_stalled_shards(),
        "hard_limited": stop_past_hard_limit(),
        "ended": end_finished_jobs(),
    }


def send_outbox(limit: int = 100) -> int:
    """Send the tasks of pending jobs in the outbox, oldest first; stop at the first broker
    error (it is still down: the next sweep tries again)."""
    sent = 0
    waiting = Job.objects.filter(state=Job.State.PENDING, outbox_since__isnull=False)
    for job_id in waiting.order_by("outbox_since", "pk").values_list("pk", flat=True)[:limit]:
        with transaction.atomic():
            job = (
                Job.objects.select_for_update(skip_locked=True)
                .filter(pk=job_id, outbox_since__isnull=False)
                .first()
            )
            if job is None:
                continue  # another sweep has it
            try:
                send_job_task(job.pk, job.kind, job.celery_task_id)
            except BROKER_ERRORS as exc:
                logger.info("outbox: the broker still does not answer (%s)", exc)
                return sent
            Job.objects.filter(pk=job.pk).update(outbox_since=None)
            sent += 1
            logger.info("outbox: job #%s sent", job.pk)
    return sent


def resume_stalled_shards() -> int:
    """Send one task per job with a shard whose lease went stale (its worker died), and no
    other while that task waits in the queue: the stalled shards are marked
    (``JobShard.resume_sent_at``) until a claim takes them. Only a task a free worker of the
    queue left untaken for a grace period was lost (a broker restarted): it is sent again."""
    now = timezone.now()
    grace = timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS)
    job_ids = stalled_shards().order_by("job_id").values_list("job_id", flat=True).distinct()
    resumed = 0
    for job_id in list(job_ids[:100]):
        with transaction.atomic():
            job = (
                Job.objects.select_for_update(skip_locked=True)
                .filter(pk=job_id, state=Job.State.RUNNING)
                .first()
            )
            if job is None:
                continue  # another sweep has it, or it ended
            shards = stalled_shards().filter(job_id=job_id)
            queued = shards.aggregate(at=Min("resume_sent_at"))["at"]
            if queued is not None and not _resume_lost(job, queued, now - grace):
                continue  # its one resume task waits for a worker
            try:
                send_job_task(job.pk, job.kind, uuid())
            except BROKER_ERRORS as exc:
                logger.info("job #%s not resumed yet: the broker does not answer (%s)", job_id, exc)
                return resumed
            shards.update(resume_sent_at=now)
        resumed += 1
        logger.warning(
            "job #%s stalled (its worker stopped): one task to resume it was sent", job_id
        )
    return resumed


def _resume_lost(job: Job, queued: datetime, before: datetime) -> bool:
    """Whether the job's queued resume task is lost: older than the grace while a worker of
    its queue has had a free slot all that grace (a free worker takes a task within seconds)."""
    if queued >= before:
        return False
    queue = queue_of(job.kind)
    return queue is not None and idle_since(queue, before)


def stop_past_hard_limit() -> int:
    """Fail the running jobs past their kind's hard time limit, with that error."""
    now = timezone.now()
    stopped = 0
    for job in Job.objects.filter(state=Job.State.RUNNING, running_since__isnull=False):
        left = seconds_left(job.kind, job.running_since, now)
        if left is None or left.hard_s > 0:
            continue
        message = hard_limit_message(job.kind, limits_for(job.kind))
        if abort_job(job.pk, message):
            job.add_error(message, job_attempt=job.attempts, time_limit="hard")
            stopped += 1
    return stopped


def end_finished_jobs() -> int:
    """End running jobs whose shards have all ended (their last worker died just before)."""
    running_with_shards = Job.objects.filter(state=Job.State.RUNNING, shards__isnull=False)
    unfinished = JobShard.objects.filter(
        state__in=[JobShard.State.PENDING, JobShard.State.RUNNING]
    ).values("job_id")
    candidates = running_with_shards.exclude(pk__in=unfinished).distinct()
    return sum(finish_job_if_done(pk) is not None for pk in candidates.values_list("pk", flat=True))
