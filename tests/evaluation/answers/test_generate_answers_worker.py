"""generate_answers on a real celery worker with the embedded generator: results, re-runs, and
recovery after the worker is killed mid-job."""

from __future__ import annotations

import re
import time

import pytest

from crux_app.jobs.service import start_job
from crux_app.models import GeneratedOutput, Job, OutputContext
from evaluation.answers.job import AnswerJobParams
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from tests import worker_fixtures
from tests.crux_app.job_collections import make_answer_collection
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_generates_answers_and_a_second_run_does_no_model_work(start_worker):
    data = make_answer_collection(n_topics=3, passages_per_topic=3)
    params = AnswerJobParams(run_id=data.run.pk, k=2, batch_size=2).as_params(data.run)
    worker = start_worker()

    job = wait_for(
        start_job("generate_answers", params, collection=data.collection), finished, worker
    )

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.done == job.total == 3
    assert job.message == "generated 3, already stored 0"
    outputs = list(
        GeneratedOutput.objects.filter(collection=data.collection).order_by("external_id")
    )
    assert [o.external_id for o in outputs] == ["rag:bm25@2/q0", "rag:bm25@2/q1", "rag:bm25@2/q2"]
    for output in outputs:
        assert output.kind == GeneratedOutput.Kind.ANSWER
        assert output.generator == EMBEDDED_GENERATOR_ID
        assert output.text.strip()
        assert len(output.tokens) == len(output.token_logprobs) > 0
        assert "".join(output.tokens) == output.text
        assert all(lp <= 0.0 for lp in output.token_logprobs)
        ranked = data.passages[output.topic.external_id][:2]
        assert list(output.context.values_list("passage", flat=True)) == [p.pk for p in ranked]
    before = list(GeneratedOutput.objects.order_by("pk").values_list("pk", "text", "created_at"))

    started = time.monotonic()
    again = wait_for(
        start_job("generate_answers", params, collection=data.collection), finished, worker
    )

    assert again.state == Job.State.SUCCEEDED
    assert again.done == again.total == 3
    assert again.message == "generated 0, already stored 3"
    assert time.monotonic() - started < 15
    after = list(GeneratedOutput.objects.order_by("pk").values_list("pk", "text", "created_at"))
    assert after == before
    assert OutputContext.objects.count() == 3 * 2


def test_killed_worker_job_is_redelivered_and_completes_without_duplicates(start_worker):
    data = make_answer_collection(n_topics=5, passages_per_topic=2)
    params = AnswerJobParams(run_id=data.run.pk, k=1, batch_size=1).as_params(data.run)
    first = start_worker(worker_fixtures.FAST_LEASES)
    job = start_job("generate_answers", params, collection=data.collection)

    job = wait_for(job, lambda j: j.done > 0 or j.is_finished, first)
    first.kill()
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING and 0 < job.done < job.total, (job.state, job.done)
    stored_before_kill = GeneratedOutput.objects.count()
    assert 0 < stored_before_kill < 5

    second = start_worker(worker_fixtures.FAST_LEASES)
    job = wait_for(job, finished, second)

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.done == job.total == 5
    # Issue #24: the new worker takes the dead one's shard over within the same attempt, so
    # the counts add up over both workers (no second attempt re-planning the rest).
    assert job.attempts == 1
    counts = re.fullmatch(r"generated (\d+), already stored (\d+)", job.message)
    assert counts, job.message
    # Only the batch in flight when the worker died can have been stored but not counted.
    assert int(counts[1]) + int(counts[2]) == 5 and int(counts[2]) <= 1
    outputs = GeneratedOutput.objects.filter(collection=data.collection)
    assert sorted(outputs.values_list("topic__external_id", flat=True)) == [
        "q0", "q1", "q2", "q3", "q4"
    ]  # fmt: skip
    assert OutputContext.objects.filter(output__in=outputs).count() == 5
    # Redis handed the killed worker's unacknowledged message (same task id) to the new worker.
    assert f"jobs.generate_answers[{job.celery_task_id}] received" in second.log
