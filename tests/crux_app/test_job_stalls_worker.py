"""On real workers: ``kill -9`` the worker running a job while the only other worker is busy
with a longer job. The stalled job's page says so (the dead worker, no free worker, which job
holds the busy one), the live worker's sweeps queue one task to resume it, not one a grace
period, and once the busy worker is free it takes the shard over: the job ends with exactly
its planned results. A job a researcher moves up ("Run next") runs before the job queued ahead
of it, inside the task the worker takes next. A judge served by a local server that answers
after a fixed delay (tests/delay_server.py) keeps the jobs running long enough."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from crux_app.jobs.service import start_job
from crux_app.models import Job, JobShard, Judgment
from evaluation.crux.job import KIND, JudgeJobParams
from evaluation.crux.judge_scope import RUN
from tests import worker_fixtures
from tests.crux_app.factories import make_collection, make_passages, make_run, make_topic
from tests.delay_server import DelayServer
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

RESUME_SENT = "one task to resume it was sent"


@pytest.fixture(autouse=True)
def judge_server(monkeypatch):
    """Set up before ``start_worker`` takes the workers' environment (autouse fixtures first)."""
    server = DelayServer(delay_s=0.3).start()
    monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
    monkeypatch.setenv("JUDGE_MODEL", "delay-judge")
    monkeypatch.setenv("MODEL_API_MAX_RETRIES", "0")
    yield server
    server.shutdown()


def _judge_job(name: str, n_subquestions: int, n_passages: int) -> Job:
    collection = make_collection(name)
    topic = make_topic(collection, "t1", n_subquestions=n_subquestions)
    passages = make_passages(collection, "t1", n_passages)
    run = make_run(collection, "bm25", topic, passages)
    params = JudgeJobParams(scope=RUN, run_id=run.pk, k=n_passages, batch_size=2)
    return start_job(KIND, params.as_params(run), collection=collection)


def _holder(job: Job) -> str:
    shard = job.shards.filter(state=JobShard.State.RUNNING).first()
    return shard.worker if shard else ""


def test_a_killed_workers_job_waits_honestly_for_the_busy_one_with_one_resume(
    start_worker, researcher_client, settings
):
    fast = worker_fixtures.FAST_LEASES
    settings.JOB_LEASE_GRACE_SECONDS = float(fast["JOB_LEASE_GRACE_SECONDS"])  # the page's view
    settings.WORKER_HEARTBEAT_SECONDS = float(fast["WORKER_HEARTBEAT_SECONDS"])
    env = {**fast, "JOB_MAX_SHARDS": "1"}
    workers = [start_worker(env, wait=False), start_worker(env, wait=False)]
    for worker in workers:
        worker_fixtures.wait_until_ready(worker)

    long_job = _judge_job("long", n_subquestions=6, n_passages=12)  # 72 items, about 22 s
    long_job = wait_for(long_job, lambda j: bool(_holder(j)), workers[0])
    busy_name = _holder(long_job)
    job = _judge_job("short", n_subquestions=3, n_passages=4)  # 12 items
    job = wait_for(job, lambda j: j.done > 0 and bool(_holder(j)), workers[0])
    doomed_name = _holder(job)
    assert doomed_name != busy_name
    doomed = workers[int(doomed_name.split("@")[0].removeprefix("jobtest"))]  # started in order
    survivor = next(w for w in workers if w is not doomed)
    doomed.kill()  # kill -9 mid-job: its shard's lease stops being renewed

    wait_for(
        job,
        lambda j: j.shards.filter(resume_sent_at__isnull=False).exists(),
        survivor,
        timeout=30,
    )
    html = researcher_client.get(reverse("job-detail", args=[job.pk])).content.decode()
    assert f"Shard 0 stalled: worker {doomed_name} held it and its heartbeat stopped" in html
    assert "No free worker serves the gpu queue now" in html
    assert f'is busy with <a href="/jobs/{long_job.pk}/">' in html
    assert "One task to resume it was queued at " in html
    assert "another worker resumes it" not in html

    time.sleep(4 * settings.JOB_LEASE_GRACE_SECONDS)  # several sweeps of the live worker
    long_job.refresh_from_db()
    assert long_job.state == Job.State.RUNNING, "the busy worker freed up too soon to tell"
    assert survivor.log.count(RESUME_SENT) == 1, survivor.log_tail()

    job = wait_for(job, finished, survivor)
    long_job = wait_for(long_job, finished, survivor)
    assert job.state == Job.State.SUCCEEDED, (job.message, job.errors, survivor.log_tail())
    assert long_job.state == Job.State.SUCCEEDED, long_job.message
    assert (job.done, job.total) == (12, 12)
    assert Judgment.objects.filter(topic__collection=job.collection).count() == 12
    assert survivor.log.count(RESUME_SENT) == 1


def test_a_job_moved_up_runs_before_the_ones_queued_ahead_of_it(start_worker, researcher_client):
    worker = start_worker({**worker_fixtures.FAST_LEASES, "JOB_MAX_SHARDS": "1"})
    busy = _judge_job("busy", n_subquestions=4, n_passages=6)  # 24 items hold the one worker
    busy = wait_for(busy, lambda j: bool(_holder(j)), worker)
    first = _judge_job("first", n_subquestions=2, n_passages=2)
    moved = _judge_job("moved", n_subquestions=2, n_passages=2)
    page = researcher_client.get(reverse("job-detail", args=[moved.pk])).content.decode()
    assert "<b>position 2</b>" in page and 'id="job-move-up"' in page
    response = researcher_client.post(reverse("job-move-up", args=[moved.pk]))
    assert response.status_code == 302
    page = researcher_client.get(reverse("job-detail", args=[moved.pk])).content.decode()
    assert "<b>position 1</b>" in page

    for job in (busy, first, moved):
        wait_for(job, finished, worker)
        job.refresh_from_db()
        assert job.state == Job.State.SUCCEEDED, (job.message, worker.log_tail())
    first.refresh_from_db()
    moved.refresh_from_db()
    # The worker took ``first``'s task next (the broker's order) and ran ``moved`` in it first.
    assert moved.finished_at <= first.started_at, worker.log_tail()
    assert f"job #{moved.pk} was moved up: it runs before job #{first.pk}" in worker.log
    # Its own task comes later: the worker logs it after ``first`` finished, so wait for it.
    skipped = f"job #{moved.pk} is succeeded: task not run"
    deadline = time.monotonic() + 30
    while skipped not in worker.log and time.monotonic() < deadline:
        time.sleep(0.2)
    assert skipped in worker.log, worker.log_tail()
