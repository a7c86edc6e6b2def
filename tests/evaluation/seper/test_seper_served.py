"""SePer through an OpenAI-compatible server: sampled answers weighted by the server's token
log-probs and its LLM-NLI answers, as with the local backend; refused by a server that returns
no log-probs (``transformers serve``)."""

from __future__ import annotations

import pytest

from crux_app.models import Job
from evaluation.backends import registry
from evaluation.seper.models import SeperScore
from evaluation.seper.tasks import run_seper
from tests.evaluation.seper.seper_job_data import seper_collection, seper_job

pytestmark = [pytest.mark.django_db, pytest.mark.models]


@pytest.fixture
def generator_on(settings):
    def point(served) -> None:
        settings.GENERATOR_API_BASE, settings.GENERATOR_MODEL = served.base_url, served.model
        settings.JUDGE_MODEL = settings.NLI_MODEL = settings.NLI_API_BASE = ""
        registry.clear()

    yield point
    registry.clear()


def test_seper_runs_on_a_server_that_returns_logprobs(generator_on, logprob_served_model):
    generator_on(logprob_served_model)
    data = seper_collection()

    job = run_seper(seper_job(data, k=1, n_samples=2))

    assert job.state == Job.State.SUCCEEDED, job.errors
    rows = SeperScore.objects.filter(topic=data.topic)
    assert rows.exists()
    for row in rows:
        assert row.generator == "openai-api:embedded-smollm2"
        assert row.nli == "llm-nli:openai-api:embedded-smollm2"
        assert sum(row.detail["weights"]) == pytest.approx(1.0)
        assert 0.0 <= row.seper_s <= 1.0
    assert job.prompt_tokens > 0 and job.completion_tokens > 0


def test_seper_is_refused_by_a_server_without_logprobs(generator_on, served_model):
    generator_on(served_model)
    data = seper_collection()

    job = run_seper(seper_job(data))

    assert job.state == Job.State.FAILED and job.done == 0
    assert served_model.base_url in job.message
    assert "which SePer (each sampled answer's probability) needs" in job.message
    assert not SeperScore.objects.exists()
