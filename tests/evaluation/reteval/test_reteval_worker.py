"""The reteval job on a real celery worker with the embedded generator as generator and judge:
one question of a small QA collection at k=1, then a re-run that does no model work."""

from __future__ import annotations

import pytest

from crux_app.jobs.service import start_job
from crux_app.models import GeneratedOutput, Job
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.reteval.job import RetEvalJobParams
from evaluation.reteval.models import Comparison, RetEvalResult
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_runs_reteval_and_a_rerun_loads_nothing_new(start_worker):
    data = make_reteval_collection()
    params = RetEvalJobParams(
        run_id=data.run.pk, ks=(1,), n_semi_gold=2, max_new_tokens=8, max_questions=1
    ).as_params(data.run)
    worker = start_worker()

    job = wait_for(start_job("reteval", params, collection=data.collection), finished, worker)

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.done == job.total == 1
    result = RetEvalResult.objects.get()
    assert (result.topic.external_id, result.k, result.recall) == ("q1", 1, 1.0)
    assert result.judge == EMBEDDED_GENERATOR_ID
    semi = GeneratedOutput.objects.filter(system="semi-gold")
    assert semi.count() == 2 and all(o.generator == EMBEDDED_GENERATOR_ID for o in semi)
    assert result.rag_output.system == "reteval:bm25@1"
    n_comparisons = Comparison.objects.count()
    assert n_comparisons == len([o for o in semi if o.text.strip()])
    assert result.n_yes + result.n_no + result.n_unparsable == n_comparisons

    again = wait_for(start_job("reteval", params, collection=data.collection), finished, worker)

    assert again.state == Job.State.SUCCEEDED, again.errors
    assert "semi-gold generated 0, RAG answers generated 0, judged 0" in again.message
    assert Comparison.objects.count() == n_comparisons
    assert RetEvalResult.objects.get().verdict == result.verdict
