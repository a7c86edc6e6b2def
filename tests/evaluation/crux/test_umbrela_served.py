"""The UMBRELA judging job through an OpenAI-compatible server (the test server on the embedded
model, answering as vLLM does): served grades are the qrels of a judge of their own, and a
sampled repeat sends its temperature and seed to the server."""

from __future__ import annotations

import re

import pytest

from crux_app.models import Job, Judge
from evaluation.backends import registry
from evaluation.crux.job import KIND, JudgeJobParams, run_judge_job
from evaluation.crux.tasks import judge_model_for
from tests.evaluation.crux.trec_judging import make_trec_collection, stored_qrels

pytestmark = [pytest.mark.django_db, pytest.mark.models]

SERVED = "openai-api:embedded-smollm2"


@pytest.fixture
def judge_on(settings):
    def point(served) -> None:
        settings.JUDGE_API_BASE, settings.JUDGE_MODEL = served.base_url, served.model
        registry.clear()

    yield point
    registry.clear()


def umbrela_job(collection, **params) -> Job:
    bm25 = collection.runs.get(name="bm25")
    config = JudgeJobParams(rubric="umbrela", scope="run", run_id=bm25.pk, k=1, **params)
    return Job.objects.create(kind=KIND, params=config.as_params(bm25), collection=collection)


def unparsable(job: Job) -> int:
    return int(re.search(r"unparsable (\d+)", job.message).group(1))


def test_served_umbrela_grades_and_a_sampled_repeat(judge_on, logprob_served_model, tmp_path):
    judge_on(logprob_served_model)
    collection = make_trec_collection(tmp_path / "trec")

    greedy = run_judge_job(umbrela_job(collection), judge_model_for)
    assert greedy.state == Job.State.SUCCEEDED, greedy.errors
    name = f"{SERVED}@umbrela-v1"
    assert greedy.params["judge"] == name and greedy.done == 3  # bm25's top 1 of 3 topics
    assert Judge.objects.get(name=name).prompt_version == "umbrela-v1"
    qrels = stored_qrels(name)
    assert len(qrels) == 3 - unparsable(greedy)
    assert set(qrels.values()) <= {0, 1, 2, 3}

    repeat = run_judge_job(umbrela_job(collection, temperature=0.7, seed=1), judge_model_for)
    assert repeat.state == Job.State.SUCCEEDED, repeat.errors
    assert repeat.params["judge"] == f"{name}~t0.7-s1"
    assert len(stored_qrels(f"{name}~t0.7-s1")) == 3 - unparsable(repeat)
    assert stored_qrels(name) == qrels  # the greedy judge's qrels are not touched
    assert repeat.prompt_tokens > 0
