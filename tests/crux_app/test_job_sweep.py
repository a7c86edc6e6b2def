"""The workers' sweep: a job started while the broker is down waits in the outbox (its page says
so) and is sent once the broker answers; a stalled shard gets one task to resume it; a job past
its hard time limit fails with that error; a job whose last worker died after its last shard is
ended. Against a real Redis (and a port where none listens)."""

from datetime import timedelta

import pytest
import redis
from django.utils import timezone

from crux_app.jobs.service import start_job
from crux_app.jobs.shards import claim_shard, end_shard, plan_job, record_batch
from crux_app.jobs.sweep import (
    end_finished_jobs,
    resume_stalled_shards,
    send_outbox,
    stop_past_hard_limit,
)
from crux_app.jobs.time_limits import TimeLimits
from crux_app.models import Job, JobShard
from tests import worker_fixtures

pytestmark = pytest.mark.django_db

NOBODY_LISTENS = "redis://127.0.0.1:1/0"


@pytest.fixture
def broker(settings):
    """This process sends to the test Redis database (emptied), whatever the caller exported."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    conf = worker_fixtures.celery_app.conf
    previous = (conf.get("broker_url"), conf.get("result_backend"))
    client = redis.Redis.from_url(worker_fixtures.BROKER_URL)
    client.flushdb()
    worker_fixtures._use_broker(worker_fixtures.BROKER_URL, None)
    yield client
    client.flushdb()
    worker_fixtures._use_broker(*previous)  # later tests of this process see the app's backend


def _queued(client: redis.Redis) -> int:
    return client.llen("gpu") + client.llen("cpu")


def test_a_job_started_while_the_broker_is_down_waits_and_is_sent_later(
    broker, django_capture_on_commit_callbacks, researcher_client, researcher
):
    worker_fixtures._use_broker(NOBODY_LISTENS, None)
    with django_capture_on_commit_callbacks(execute=True):
        job = start_job("generate_answers", {"k": 1}, user=researcher)  # no 500, no exception
    job.refresh_from_db()
    assert job.state == Job.State.PENDING and job.outbox_since is not None
    html = researcher_client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Waiting for the broker:" in html

    assert send_outbox() == 0  # still down: kept
    worker_fixtures._use_broker(worker_fixtures.BROKER_URL, None)
    assert send_outbox() == 1
    job.refresh_from_db()
    assert job.outbox_since is None and _queued(broker) == 1
    assert send_outbox() == 0  # sent once
    assert (
        "Waiting for the broker" not in researcher_client.get(f"/jobs/{job.pk}/").content.decode()
    )


def test_a_stalled_shard_gets_one_resume_task(broker, settings):
    job = Job.objects.create(kind="generate_answers")
    plan_job(job, [[1], [2]])
    shard = claim_shard(job.pk, "dead@host")
    assert resume_stalled_shards() == 0  # its lease is alive
    stale = timezone.now() - timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS + 1)
    JobShard.objects.filter(pk=shard.pk).update(heartbeat_at=stale)
    assert resume_stalled_shards() == 1
    assert resume_stalled_shards() == 0  # another sweep (worker) does not send it again
    assert _queued(broker) == 1


def test_a_job_past_its_hard_time_limit_fails_with_that_error(settings):
    settings.JOB_TIME_LIMITS = {"generate_answers": TimeLimits(60, 120)}
    job = Job.objects.create(kind="generate_answers")
    plan_job(job, [[1], [2]])
    claim_shard(job.pk, "stuck@host")
    assert stop_past_hard_limit() == 0
    Job.objects.filter(pk=job.pk).update(running_since=timezone.now() - timedelta(seconds=121))
    assert stop_past_hard_limit() == 1
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.message.startswith("hard time limit reached: a generate_answers job may run 120 s")
    assert [e["time_limit"] for e in job.errors] == ["hard"]
    assert set(job.shards.values_list("state", flat=True)) == {JobShard.State.FAILED}
    assert stop_past_hard_limit() == 0


def test_a_job_whose_shards_all_ended_is_ended_by_the_sweep():
    job = Job.objects.create(kind="generate_answers")
    plan_job(job, [[1]])
    shard = claim_shard(job.pk, "a@host")
    record_batch(shard, 0, {"generated": 1})
    end_shard(shard, JobShard.State.SUCCEEDED)  # and the worker died here
    assert end_finished_jobs() == 1
    job.refresh_from_db()
    assert (job.state, job.message) == (Job.State.SUCCEEDED, "generated 1")
