"""Celery (broker, queues, redelivery) and the job runner: retries, shards, leases, worker
heartbeats and time limits."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from crux_app.jobs.time_limits import parse_time_limits

from .environment import BASE_DIR, env_bool
from .webhooks import WEBHOOKS_QUEUE, WEBHOOKS_SWEEP_SECONDS

# Celery: Redis broker and result backend; queue `gpu` for model work, `webhooks` for webhook
# deliveries, `cpu` for the rest.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "redis://127.0.0.1:6379/1")
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A job kind's task goes to the queue its kind declares (JobKind.queue); webhook deliveries go to
# their own queue (settings/webhooks.py).
CELERY_TASK_ROUTES = (
    "crux_app.jobs.routing.route_task",
    {"webhooks.*": {"queue": WEBHOOKS_QUEUE}},
)
# Periodic tasks, sent by `celery -A crux_app beat` (one beat process per install).
CELERY_BEAT_SCHEDULE = {
    "webhooks-sweep": {
        "task": "webhooks.sweep",
        "schedule": WEBHOOKS_SWEEP_SECONDS,
        "options": {"expires": WEBHOOKS_SWEEP_SECONDS},  # a backlog of sweeps is useless
    },
}
# Redis redelivers an unacknowledged task (its worker died) once it is older than the visibility
# timeout; a new worker restores such tasks at start and then every unacked_restore_interval
# seconds. Keep the timeout above the longest task: a live worker's task older than it would be
# handed to a second worker too (harmless for idempotent jobs, but wasted work). The worker
# tests set CELERY_VISIBILITY_TIMEOUT low to exercise redelivery.
_visibility_timeout = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": _visibility_timeout,
    "unacked_restore_interval": max(1, min(10, _visibility_timeout // 2)),
    "unacked_restore_throttle": 1,
}
# Zero-configuration demo without Redis (scripts/demo.sh): kombu's filesystem transport, with
# its folders under CELERY_FILESYSTEM_DIR (they must exist; the demo script creates them).
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = Path(os.environ.get("CELERY_FILESYSTEM_DIR", BASE_DIR / "var" / "celery"))
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "messages"),
        "data_folder_out": str(_broker_dir / "messages"),
        "control_folder": str(_broker_dir / "control"),
    }
# A job batch that raises is tried this many more times before it counts as failed.
JOB_BATCH_RETRIES = int(os.environ.get("JOB_BATCH_RETRIES", "2"))
# One job, many workers (crux_app.jobs.shards): a job's planned batches are cut into at most
# JOB_MAX_SHARDS shards that any worker of its queue claims; at most JOB_MAX_TASKS tasks are sent
# for one job (its first, plus one per further shard for the other workers).
JOB_MAX_SHARDS = int(os.environ.get("JOB_MAX_SHARDS", "64"))
JOB_MAX_TASKS = int(os.environ.get("JOB_MAX_TASKS", "16"))
# A running shard's worker renews its lease every JOB_LEASE_HEARTBEAT_SECONDS; a shard whose
# lease is older than JOB_LEASE_GRACE_SECONDS (its worker was killed) is taken over by another.
JOB_LEASE_HEARTBEAT_SECONDS = float(os.environ.get("JOB_LEASE_HEARTBEAT_SECONDS", "5"))
JOB_LEASE_GRACE_SECONDS = float(os.environ.get("JOB_LEASE_GRACE_SECONDS", "60"))
# Workers report themselves and sweep (the outbox, stalled shards, hard time limits) this often.
WORKER_HEARTBEAT_SECONDS = float(os.environ.get("WORKER_HEARTBEAT_SECONDS", "10"))
# Time limits of a job's attempt, from its start: at the soft one the job stops (failed, stored
# results kept, Retry resumes); at the hard one a worker that did not stop is abandoned (the job
# fails; a prefork worker's process is killed). JOB_TIME_LIMITS=kind=soft:hard,... per kind.
JOB_SOFT_TIME_LIMIT_SECONDS = float(os.environ.get("JOB_SOFT_TIME_LIMIT_SECONDS", "86400"))
JOB_HARD_TIME_LIMIT_SECONDS = float(os.environ.get("JOB_HARD_TIME_LIMIT_SECONDS", "87000"))
JOB_TIME_LIMITS = parse_time_limits(os.environ.get("JOB_TIME_LIMITS", ""))
if JOB_LEASE_GRACE_SECONDS < 2 * JOB_LEASE_HEARTBEAT_SECONDS or JOB_LEASE_HEARTBEAT_SECONDS <= 0:
    raise ImproperlyConfigured(
        "JOB_LEASE_GRACE_SECONDS must be at least twice JOB_LEASE_HEARTBEAT_SECONDS (> 0)"
    )
if not 0 < JOB_SOFT_TIME_LIMIT_SECONDS <= JOB_HARD_TIME_LIMIT_SECONDS:
    raise ImproperlyConfigured(
        "JOB_SOFT_TIME_LIMIT_SECONDS must be > 0 and at most JOB_HARD_TIME_LIMIT_SECONDS"
    )
if JOB_MAX_SHARDS < 1 or JOB_MAX_TASKS < 1 or WORKER_HEARTBEAT_SECONDS <= 0:
    raise ImproperlyConfigured("JOB_MAX_SHARDS, JOB_MAX_TASKS must be >= 1, heartbeat > 0")
