"""judge_answerability on a real celery worker with the embedded judge: recovery after the
worker is killed mid-job, no duplicate judgments, and a re-run that does no model work."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from django.db.models import Max

from crux_app.jobs.service import start_job
from crux_app.models import Job, Judgment
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.crux.job import KIND, JudgeJobParams
from evaluation.crux.judge_scope import RUN
from tests import worker_fixtures
from tests.crux_app.factories import make_small_collection
from tests.worker import job_waiting
from tests.worker.job_waiting import finished

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

JOB_TIMEOUT_S = 180
N_ITEMS = 6  # run bm25's top 2 passages x 3 real sub-questions of topic duc04-testb-3


def wait_for(job: Job, until: Callable[[Job], bool], worker) -> Job:
    return job_waiting.wait_for(job, until, worker, timeout=JOB_TIMEOUT_S)


def test_killed_worker_judge_job_completes_on_a_new_worker_without_duplicates(start_worker):
    data = make_small_collection()
    params = JudgeJobParams(scope=RUN, run_id=data.bm25.pk, k=2, batch_size=1).as_params(data.bm25)
    first = start_worker(worker_fixtures.FAST_LEASES)
    job = start_job(KIND, params, collection=data.collection, topic=data.topic)

    job = wait_for(job, lambda j: j.done > 0 or j.is_finished, first)
    first.kill()
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING and 0 < job.done < job.total, (job.state, job.done)
    judged = Judgment.objects.filter(judge__model_id=EMBEDDED_GENERATOR_ID)
    stored_before_kill = judged.count()
    assert 0 < stored_before_kill < N_ITEMS
    last_before_kill = judged.aggregate(last=Max("pk"))["last"]

    second = start_worker(worker_fixtures.FAST_LEASES)
    job = wait_for(job, finished, second)

    assert job.state == Job.State.SUCCEEDED, job.errors
    # Issue #24: the new worker takes the dead one's shard over within the same attempt, so
    # progress and counts add up over both workers (no second attempt re-planning the rest).
    assert job.attempts == 1
    assert job.done == job.total == N_ITEMS
    new = judged.filter(pk__gt=last_before_kill)
    assert new.count() == N_ITEMS - stored_before_kill
    counts = re.fullmatch(
        r"judged (\d+), unparsable (\d+)(?:, judged by another worker (\d+))?, "
        r"already judged 0, skipped \(no text\) 0",
        job.message,
    )
    assert counts, job.message
    # Only the batch in flight when the worker died can have been stored but not counted.
    assert int(counts[1]) + int(counts[3] or 0) == N_ITEMS and int(counts[3] or 0) <= 1
    assert judged.count() == N_ITEMS
    pairs = set(judged.values_list("subquestion_id", "passage_id"))
    assert len(pairs) == N_ITEMS  # every item once
    assert set(judged.values_list("topic_id", flat=True)) == {data.topic.pk}
    assert set(judged.values_list("passage_id", flat=True)) == {p.pk for p in data.passages[:2]}
    assert f"jobs.judge_answerability[{job.celery_task_id}] received" in second.log

    started = time.monotonic()
    again = wait_for(
        start_job(KIND, params, collection=data.collection, topic=data.topic), finished, second
    )
    assert again.state == Job.State.SUCCEEDED
    assert (again.done, again.total) == (0, 0)
    assert again.message == f"already judged {N_ITEMS}, skipped (no text) 0"
    assert time.monotonic() - started < 15
    assert judged.count() == N_ITEMS
