"""Exactly once on real workers, with a judge served by a local server that answers after a
fixed delay (tests/delay_server.py):

- a job started while the broker is down waits in the outbox and the workers' sweep sends it;
  its task delivered again while the first runs exits without work, and once more after the
  job finished leaves the job as it is;
- two workers share one job's shards; ``kill -9`` one mid-job and the other takes its shard
  over after the grace period: the job finishes with exactly the planned results, none twice.
"""

from __future__ import annotations

import time

import pytest

from crux_app.jobs.dispatch import send_job_task
from crux_app.jobs.service import start_job
from crux_app.jobs.shard_status import shards_status
from crux_app.models import Job, JobShard, Judgment
from evaluation.crux.job import KIND, JudgeJobParams
from evaluation.crux.judge_scope import RUN
from tests import worker_fixtures
from tests.crux_app.factories import make_collection, make_passages, make_run, make_topic
from tests.delay_server import DelayServer
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

FAST_LEASES = worker_fixtures.FAST_LEASES


@pytest.fixture(autouse=True)
def judge_server(monkeypatch):
    """Set up before ``start_worker`` takes the workers' environment (autouse fixtures first)."""
    server = DelayServer(delay_s=0.3).start()
    monkeypatch.setenv("JUDGE_API_BASE", server.base_url)
    monkeypatch.setenv("JUDGE_MODEL", "delay-judge")
    monkeypatch.setenv("MODEL_API_MAX_RETRIES", "0")
    yield server
    server.shutdown()


def _judge_job_params(n_subquestions: int, n_passages: int) -> tuple[dict, object]:
    collection = make_collection("scale")
    topic = make_topic(collection, "t1", n_subquestions=n_subquestions)
    passages = make_passages(collection, "t1", n_passages)
    run = make_run(collection, "bm25", topic, passages)
    params = JudgeJobParams(scope=RUN, run_id=run.pk, k=n_passages, batch_size=2)
    return params.as_params(run), collection


def _holds_a_shard(job: Job, worker_prefix: str) -> bool:
    """Whether a worker named ``worker_prefix...`` runs a shard of ``job`` now."""
    return job.shards.filter(
        state=JobShard.State.RUNNING, worker__startswith=worker_prefix
    ).exists()


def _log_says(workers, text: str, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(text in w.log for w in workers):
            return True
        time.sleep(0.1)
    return False


def test_outbox_then_a_task_delivered_twice_and_after_the_end_runs_once(
    start_worker, judge_server, researcher_client
):
    params, collection = _judge_job_params(n_subquestions=3, n_passages=4)  # 12 items
    worker_fixtures._use_broker("redis://127.0.0.1:1/0", worker_fixtures.RESULT_URL)
    job = start_job(KIND, params, collection=collection)  # the broker does not answer
    job.refresh_from_db()
    assert job.state == Job.State.PENDING and job.outbox_since is not None
    assert "Waiting for the broker:" in researcher_client.get(f"/jobs/{job.pk}/").content.decode()
    worker_fixtures._use_broker(worker_fixtures.BROKER_URL, worker_fixtures.RESULT_URL)

    one_shard = {**FAST_LEASES, "JOB_MAX_SHARDS": "1"}
    workers = [start_worker(one_shard, wait=False), start_worker(one_shard, wait=False)]
    for worker in workers:
        worker_fixtures.wait_until_ready(worker)  # the first one's sweep sends the job
    job = wait_for(job, lambda j: j.done > 0 or j.is_finished, workers[0])
    assert job.state == Job.State.RUNNING and job.outbox_since is None
    send_job_task(job.pk, KIND, job.celery_task_id)  # delivered again while the first runs
    assert _log_says(workers, "held by a live worker: task not run"), workers[1].log_tail()

    job = wait_for(job, finished, workers[0])
    assert job.state == Job.State.SUCCEEDED, (job.message, job.errors)
    before = (job.state, job.done, job.total, job.attempts, job.message, job.finished_at)
    send_job_task(job.pk, KIND, job.celery_task_id)  # and once more after it finished
    assert _log_says(workers, f"job #{job.pk} is succeeded: task not run")
    job.refresh_from_db()
    assert (job.state, job.done, job.total, job.attempts, job.message, job.finished_at) == before
    assert (job.done, job.total) == (12, 12)
    assert Judgment.objects.count() == 12
    assert judge_server.stats() == {"requests": 12, "repeated": 0}


def test_a_worker_killed_mid_job_leaves_its_shard_to_the_other(start_worker, judge_server):
    params, collection = _judge_job_params(n_subquestions=4, n_passages=10)  # 40 items
    doomed, survivor = start_worker(FAST_LEASES, wait=False), start_worker(FAST_LEASES, wait=False)
    for worker in (doomed, survivor):
        worker_fixtures.wait_until_ready(worker)
    job = start_job(KIND, params, collection=collection)
    # Killed while it runs a shard: else nothing of its would stall.
    job = wait_for(job, lambda j: _holds_a_shard(j, "jobtest0@") or j.is_finished, doomed)
    assert job.state == Job.State.RUNNING
    doomed.kill()  # kill -9: its shard's lease stops being renewed

    seen_stalled: list[str] = []
    deadline = time.monotonic() + 60
    while not job.is_finished and time.monotonic() < deadline:
        status = shards_status(job)
        seen_stalled += [s.text for s in status.stalled] if status else []
        time.sleep(0.05)
        job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED, (job.state, job.message, survivor.log_tail())
    assert (job.done, job.total) == (40, 40)
    stored = Judgment.objects.all()
    assert stored.count() == 40  # exactly the planned results
    assert len(set(stored.values_list("subquestion_id", "passage_id"))) == 40  # none twice
    assert any("stalled" in text for text in seen_stalled), seen_stalled
    # Only the batch the killed worker had in flight may have been asked again.
    assert judge_server.stats()["repeated"] <= 2
