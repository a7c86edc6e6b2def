"""judge_embedding on a real celery worker: the task goes to the ``cpu`` queue and the embedded
embedder rates every item of the collection in one job."""

from __future__ import annotations

import pytest

from crux_app.jobs.service import start_job
from crux_app.models import Job, Judgment
from evaluation.crux.job import EMBEDDING, EMBEDDING_KIND, JudgeJobParams
from evaluation.crux.method.embedding_rating import PROMPT_VERSION
from tests.crux_app.factories import make_small_collection
from tests.worker import job_waiting
from tests.worker.job_waiting import finished

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_embedding_judge_rates_the_collection_on_the_cpu_queue(start_worker):
    data = make_small_collection()
    worker = start_worker()
    params = JudgeJobParams(method=EMBEDDING, batch_size=8).as_params()
    job = start_job(EMBEDDING_KIND, params, collection=data.collection)
    job = job_waiting.wait_for(job, finished, worker, timeout=180)
    assert job.state == Job.State.SUCCEEDED, (job.message, job.errors)
    judged = Judgment.objects.filter(judge__prompt_version=PROMPT_VERSION)
    assert judged.count() == job.total > 0
    assert not judged.filter(rating__isnull=True).exists()
    assert f"judge_embedding[{job.celery_task_id}] received" in worker.log
