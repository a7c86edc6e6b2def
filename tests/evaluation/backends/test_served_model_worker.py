"""A real celery worker whose generator (and so judge) is a real ``transformers serve`` process:
answer generation, judging and LLM-retEval run through it end to end; a job that needs token
log-probabilities is refused; the key reaches neither the jobs nor the worker's log."""

from __future__ import annotations

import pytest

from crux_app.jobs.service import start_job
from crux_app.models import GeneratedOutput, Job, Judgment
from evaluation.answers.job import AnswerJobParams
from evaluation.crux.job import DISTRIBUTION, KIND, JudgeJobParams
from evaluation.crux.judge_scope import RUN
from evaluation.reteval.job import RetEvalJobParams
from evaluation.reteval.models import RetEvalResult
from tests.crux_app.factories import make_small_collection
from tests.crux_app.job_collections import make_answer_collection
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.models, pytest.mark.django_db(transaction=True)]

SECRET = "sk-worker-secret-never-shown-777"


@pytest.fixture(autouse=True)
def served_generator(served_model, monkeypatch):
    """The worker's environment (taken when ``start_worker`` is set up, after this)."""
    monkeypatch.setenv("GENERATOR_API_BASE", served_model.base_url)
    monkeypatch.setenv("GENERATOR_MODEL", served_model.model)
    monkeypatch.setenv("GENERATOR_API_KEY", SECRET)
    for name in ("JUDGE_API_BASE", "JUDGE_MODEL", "NLI_API_BASE", "NLI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return served_model


def test_jobs_run_through_a_served_model_and_log_prob_jobs_are_refused(
    start_worker, served_generator
):
    served_id = f"openai-api:{served_generator.model}"
    worker = start_worker()

    answers = make_answer_collection(n_topics=2, passages_per_topic=2)
    params = AnswerJobParams(run_id=answers.run.pk, k=1, batch_size=2).as_params(answers.run)
    job = wait_for(
        start_job("generate_answers", params, collection=answers.collection), finished, worker
    )
    assert job.state == Job.State.SUCCEEDED, job.errors
    outputs = GeneratedOutput.objects.filter(collection=answers.collection)
    assert outputs.count() == 2 and {o.generator for o in outputs} == {served_id}
    assert all(o.text.strip() for o in outputs)
    assert job.prompt_tokens > 0 and job.completion_tokens > 0
    # The worker's request threads keep the caller's role; a served model's forward tokens
    # are what it read and wrote.
    [usage] = job.model_usage.all()
    assert usage.role == "generator" and usage.calls >= 2  # a request per answer (+ the probe)
    assert (usage.prompt_tokens, usage.completion_tokens) == (
        job.prompt_tokens,
        job.completion_tokens,
    )
    assert usage.forward_tokens == job.prompt_tokens + job.completion_tokens

    data = make_small_collection()
    judge_params = JudgeJobParams(scope=RUN, run_id=data.bm25.pk, k=2, batch_size=3)
    job = wait_for(
        start_job(KIND, judge_params.as_params(data.bm25), collection=data.collection),
        finished,
        worker,
    )
    assert job.state == Job.State.SUCCEEDED, job.errors
    judged = Judgment.objects.filter(judge__model_id=served_id)
    assert judged.count() == job.done > 0
    assert job.params["judge"].startswith(served_id)
    assert job.prompt_tokens > 0 and job.completion_tokens > 0
    assert {u.role for u in job.model_usage.all()} == {"judge"}  # the same server, judging

    qa = make_reteval_collection()
    reteval_params = RetEvalJobParams(
        run_id=qa.run.pk, ks=(1,), n_semi_gold=2, max_new_tokens=8, max_questions=1
    ).as_params(qa.run)
    job = wait_for(start_job("reteval", reteval_params, collection=qa.collection), finished, worker)
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert RetEvalResult.objects.get().judge == served_id

    refused_params = JudgeJobParams(
        scope=RUN, run_id=data.bm25.pk, k=2, method=DISTRIBUTION
    ).as_params(data.bm25)
    job = wait_for(start_job(KIND, refused_params, collection=data.collection), finished, worker)
    assert job.state == Job.State.FAILED
    assert served_generator.base_url in job.message and served_generator.model in job.message
    assert "returns no token log-probabilities" in job.message
    assert "distribution judge" in job.message
    assert not Judgment.objects.filter(judge__prompt_version__endswith="+dist").exists()

    for stored in Job.objects.all():
        assert SECRET not in f"{stored.params} {stored.message} {stored.errors}"
    assert SECRET not in worker.log
