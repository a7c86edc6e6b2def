"""The judging job through an OpenAI-compatible server: the distribution judge reads the
server's top log-probs (a server that returns them, as vLLM does) and is refused by one that
returns none (``transformers serve``), naming it; served ratings are their own judge."""

from __future__ import annotations

import pytest

from crux_app.models import Job, Judgment
from evaluation.backends import registry
from evaluation.crux.job import DISTRIBUTION, KIND, JudgeJobParams, run_judge_job
from evaluation.crux.judge_scope import RUN
from evaluation.crux.tasks import judge_model_for
from tests.crux_app.factories import make_small_collection

pytestmark = [pytest.mark.django_db, pytest.mark.models]


@pytest.fixture
def judge_on(settings):
    def point(served) -> None:
        settings.JUDGE_API_BASE, settings.JUDGE_MODEL = served.base_url, served.model
        registry.clear()

    yield point
    registry.clear()


def distribution_job(data) -> Job:
    params = JudgeJobParams(scope=RUN, run_id=data.bm25.pk, k=1, method=DISTRIBUTION)
    return Job.objects.create(
        kind=KIND, params=params.as_params(data.bm25), collection=data.collection
    )


def test_the_distribution_judge_runs_on_a_server_with_logprobs(judge_on, logprob_served_model):
    judge_on(logprob_served_model)
    data = make_small_collection()

    job = run_judge_job(distribution_job(data), judge_model_for)

    assert job.state == Job.State.SUCCEEDED, job.errors
    stored = Judgment.objects.filter(judge__model_id="openai-api:embedded-smollm2")
    assert stored.count() == job.done == 3  # bm25's top passage x three real sub-questions
    for judgment in stored:
        assert judgment.judge.prompt_version.endswith("+dist")
        assert len(judgment.distribution) == 6
        # Six values stored to 6 decimals each.
        assert sum(judgment.distribution) == pytest.approx(1.0, abs=3e-6)
        assert judgment.rating == max(range(6), key=judgment.distribution.__getitem__)
    assert job.prompt_tokens > 0  # one-token answers: the probe and the prompts


def test_the_distribution_judge_is_refused_by_a_server_without_logprobs(judge_on, served_model):
    judge_on(served_model)
    data = make_small_collection()

    job = run_judge_job(distribution_job(data), judge_model_for)

    assert job.state == Job.State.FAILED
    assert job.message.startswith(f"model server {served_model.base_url} (model ")
    assert "returns no token log-probabilities, which the distribution judge" in job.message
    assert job.done == 0 and not Judgment.objects.filter(judge__model_id__startswith="openai")
