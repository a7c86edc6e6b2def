"""The dense job on a real celery worker with the embedded models: a row per question, and a
second job with everything stored does no model work."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from crux_app.jobs.service import start_job
from crux_app.models import Collection, Job, Run
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.dense.job import DenseJobParams
from evaluation.dense.models import DenseResult
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_runs_dense_and_a_second_run_does_no_model_work(start_worker):
    call_command(
        "import_qa",
        "--collection",
        "demo-qa",
        str(Path(settings.BASE_DIR) / "fixtures/demo_qa.jsonl"),
    )
    collection = Collection.objects.get(name="demo-qa")
    run = Run.objects.get(collection=collection, name="contexts")
    topic = collection.topics.get(external_id="demo-qa-2")
    params = DenseJobParams(
        run_id=run.pk, k=2, pool=2, refine=False, chunking=False, answer_max_new_tokens=8,
        rephrase_max_new_tokens=32,
    ).as_params(run)  # fmt: skip
    worker = start_worker()

    job = wait_for(
        start_job("dense", params, collection=collection, topic=topic), finished, worker, 240
    )

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.message == "evaluated 1"
    result = DenseResult.objects.get(topic=topic)
    assert result.generator == EMBEDDED_GENERATOR_ID
    assert len(result.detail["W"]) == 3 and len(result.detail["labels"]) == 2

    started = time.monotonic()
    again = wait_for(
        start_job("dense", params, collection=collection, topic=topic), finished, worker
    )
    assert again.state == Job.State.SUCCEEDED and again.message == "already stored 1"
    assert time.monotonic() - started < 15
    assert DenseResult.objects.count() == 1
