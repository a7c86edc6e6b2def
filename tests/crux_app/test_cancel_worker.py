"""Cancel on a real celery worker with the embedded judge: a job cancelled while pending is never
started when its task arrives; a running job stops between batches, ends cancelled, and keeps
the judgments it stored; resumed, it judges only the rest."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from crux_app.jobs.service import cancel_job, retry_job, start_job
from crux_app.models import Job, Judgment
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.crux.job import KIND, JudgeJobParams
from evaluation.crux.judge_scope import RUN
from tests.crux_app.factories import make_small_collection
from tests.worker import job_waiting
from tests.worker.job_waiting import finished

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

JOB_TIMEOUT_S = 240
N_ITEMS = 12  # run bm25's top 4 passages x 3 real sub-questions of topic duc04-testb-3


def wait_for(job: Job, until: Callable[[Job], bool], worker) -> Job:
    return job_waiting.wait_for(job, until, worker, timeout=JOB_TIMEOUT_S)


def test_cancel_on_a_real_worker_skips_a_pending_job_and_stops_a_running_one(start_worker):
    data = make_small_collection()
    params = JudgeJobParams(scope=RUN, run_id=data.bm25.pk, k=4, batch_size=1).as_params(data.bm25)
    judged = Judgment.objects.filter(judge__model_id=EMBEDDED_GENERATOR_ID)

    # Queued first, cancelled before any worker runs: its task arrives first and does nothing.
    skipped = start_job(KIND, params, collection=data.collection, topic=data.topic)
    assert cancel_job(skipped).state == Job.State.CANCELLED
    job = start_job(KIND, params, collection=data.collection, topic=data.topic)
    worker = start_worker()

    job = wait_for(job, lambda j: j.done > 0 or j.is_finished, worker)
    assert job.state == Job.State.RUNNING, (job.state, job.message)
    cancel_job(job)
    job = wait_for(job, finished, worker)

    assert job.state == Job.State.CANCELLED, (job.state, job.message, job.errors)
    assert 0 < job.done < job.total == N_ITEMS
    assert job.message.startswith(
        f"cancelled after {job.done} of {N_ITEMS} items (stored results kept); judged {job.done}"
    )
    assert judged.count() == job.done  # what the finished batches stored is kept

    assert f"jobs.judge_answerability[{skipped.celery_task_id}] received" in worker.log
    skipped.refresh_from_db()
    assert (skipped.state, skipped.attempts, skipped.started_at) == (Job.State.CANCELLED, 0, None)
    assert skipped.done == skipped.total == 0

    # Resumed: the same job runs only its shards that did not succeed, judging only what it had
    # not stored; its progress goes on from where the cancel left it.
    retry_job(job)
    job = wait_for(job, finished, worker)
    assert job.state == Job.State.SUCCEEDED, (job.message, job.errors)
    assert (job.done, job.total, job.attempts) == (N_ITEMS, N_ITEMS, 2)
    assert judged.count() == N_ITEMS
    assert len(set(judged.values_list("subquestion_id", "passage_id"))) == N_ITEMS
