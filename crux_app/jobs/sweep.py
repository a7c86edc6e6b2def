"""What every worker does beside its tasks, each WORKER_HEARTBEAT_SECONDS (from its heartbeat
thread, crux_app.jobs.worker_beat), so no beat process is needed:

- the outbox: send the tasks of jobs started while the broker did not answer;
- stalled shards: for a shard whose lease is older than JOB_LEASE_GRACE_SECONDS (its worker was
  killed), send a task for its job, which another worker takes it over with;
- hard time limits: fail a running job past its kind's hard limit (a prefork worker's task was
  killed by Celery; a solo worker's is abandoned);
- a running job whose shards all ended (its last worker died before ending it) is ended.

Several workers may sweep at once: each job's outbox entry is taken under a row lock
(SKIP LOCKED), and a stalled shard's resume is sent by the one sweep whose conditional update
marks it first.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import uuid
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from crux_app.models import Job, JobShard

from .dispatch import BROKER_ERRORS, send_job_task
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
    """Send one task per job that has a shard whose lease went stale (once a grace period)."""
    now = timezone.now()
    grace = timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS)
    stalled = JobShard.objects.filter(
        state=JobShard.State.RUNNING,
        heartbeat_at__lt=now - grace,
        job__state=Job.State.RUNNING,
    ).filter(Q(resume_sent_at__isnull=True) | Q(resume_sent_at__lt=now - grace))
    resumed = 0
    for shard in stalled.select_related("job")[:100]:
        fresh = Q(resume_sent_at__isnull=True) | Q(resume_sent_at__lt=now - grace)
        if not JobShard.objects.filter(fresh, pk=shard.pk).update(resume_sent_at=now):
            continue  # another sweep sent it
        try:
            send_job_task(shard.job_id, shard.job.kind, uuid())
        except BROKER_ERRORS as exc:
            JobShard.objects.filter(pk=shard.pk).update(resume_sent_at=None)
            logger.info("stalled %s not resumed yet: the broker does not answer (%s)", shard, exc)
            return resumed
        resumed += 1
        logger.warning("%s stalled on %s: a task to resume it was sent", shard, shard.worker)
    return resumed


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
