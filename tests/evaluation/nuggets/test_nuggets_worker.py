"""The nugget judging job on a real celery worker with the embedded generator as judge, in
distribution mode (every answer x nugget gets a label): a re-run assigns nothing new."""

from __future__ import annotations

import pytest

from crux_app.jobs.service import start_job
from crux_app.models import Collection, Job
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.nuggets.models import NuggetAssignment
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_assigns_nuggets_and_a_rerun_assigns_nothing_new(start_worker, tmp_path):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    params = {"task": "assign", "grades": 3, "distribution": True, "max_items": 2}
    worker = start_worker()

    job = wait_for(start_job("nuggets", params, collection=collection), finished, worker)

    assert job.state == Job.State.SUCCEEDED, job.errors
    mine = NuggetAssignment.objects.filter(judge__model_id=EMBEDDED_GENERATOR_ID)
    # The first two answers by external id: runA:t1 (3 nuggets) and runA:t2 (1).
    assert mine.count() == 4
    # Each share is stored rounded to 6 decimals: three of them sum to 1 within 1.5e-6.
    assert all(sum(a.distribution.values()) == pytest.approx(1.0, abs=2e-6) for a in mine)
    assert {a.assignment for a in mine} <= {"support", "partial_support", "not_support"}

    again = wait_for(start_job("nuggets", params, collection=collection), finished, worker)

    assert again.state == Job.State.SUCCEEDED, again.errors
    assert "assigned 0" in again.message
    assert mine.count() == 4
