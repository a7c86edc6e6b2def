"""The SCAAR job on a real celery worker with the embedded generator and embedder."""

from __future__ import annotations

import pytest

from crux_app.jobs.service import start_job
from crux_app.models import GeneratedOutput, Job
from evaluation.scaar.job import ScaarJobParams
from evaluation.scaar.models import ScaarAnalysis
from tests.crux_app.job_collections import make_answer_collection
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_analyses_answers_and_a_second_run_stores_nothing_new(start_worker):
    data = make_answer_collection(n_topics=2, passages_per_topic=2)
    for topic in data.topics:
        GeneratedOutput.objects.create(
            collection=data.collection,
            topic=topic,
            external_id=f"imported/{topic.external_id}",
            system="imported",
            kind=GeneratedOutput.Kind.ANSWER,
            text=f"I think the answer is {topic.gold_answers[0]}. It is well known.",
        )
    params = ScaarJobParams(refine=False, batch_size=1).as_params()
    worker = start_worker()

    job = wait_for(start_job("scaar", params, collection=data.collection), finished, worker)

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert (job.done, job.total) == (2, 2)
    assert job.message == "analysed 2, already stored 0"
    rows = ScaarAnalysis.objects.filter(collection=data.collection).order_by("output__external_id")
    assert [r.output.external_id for r in rows] == ["imported/q0", "imported/q1"]
    for row in rows:
        assert row.logprob_source == ScaarAnalysis.LogprobSource.SCORED
        assert row.n_sentences == 2
        assert [s["words"][-1] for s in row.detail["sentences"]] == [
            f"{row.topic.gold_answers[0]}.",
            "known.",
        ]

    again = wait_for(start_job("scaar", params, collection=data.collection), finished, worker)
    assert again.state == Job.State.SUCCEEDED
    assert again.message == "analysed 0, already stored 2"
    assert ScaarAnalysis.objects.filter(collection=data.collection).count() == 2
