"""Distribution mode of the LLM judge: the figures (hand-computed), the engine on a scripted
scorer and on the embedded model, and the job storing distributions under their own identity."""

import math

import numpy as np
import pytest

from crux_app.models import Job, Judge, Judgment
from evaluation.crux.engine import JudgeItem, rate_items_distribution
from evaluation.crux.job import DISTRIBUTION, KIND, JudgeJobParams, JudgeModel, run_judge_job
from evaluation.crux.method.judge_prompts import CRUX_RUBRIC_V1, DEFAULT_PROMPT_VERSION
from evaluation.crux.method.rating_distribution import (
    CANDIDATES,
    VERSION_SUFFIX,
    distributions,
    expected_rating,
    most_likely,
    normalised_entropy,
)
from tests.crux_app.factories import make_small_collection

P = [0.1, 0.2, 0.3, 0.2, 0.1, 0.1]


def test_distributions_renormalise_over_the_six_ratings():
    half = np.log(np.array([P]) / 2)  # half the mass on tokens that are not ratings
    assert distributions(half)[0] == pytest.approx(P)
    assert distributions(np.log(np.array([P])))[0] == pytest.approx(P)
    one_hot = np.array([[-np.inf, -np.inf, 0.0, -np.inf, -np.inf, -np.inf]])
    assert distributions(one_hot)[0].tolist() == [0, 0, 1, 0, 0, 0]
    with pytest.raises(ValueError, match="zero probability"):
        distributions(np.full((1, 6), -np.inf))
    with pytest.raises(ValueError, match=r"\(n, 6\)"):
        distributions(np.zeros((2, 5)))


def test_most_likely_expected_and_entropy_hand_computed():
    probs = np.array([P, [1, 0, 0, 0, 0, 0], [1 / 6] * 6, [0, 0.5, 0, 0, 0.5, 0]])
    assert most_likely(probs).tolist() == [2, 0, 0, 1]  # ties: the lower rating
    assert expected_rating(probs) == pytest.approx([2.3, 0.0, 2.5, 2.5])
    h = -sum(p * math.log(p) for p in P) / math.log(6)
    assert normalised_entropy(probs) == pytest.approx([h, 0.0, 1.0, math.log(2) / math.log(6)])


class ScriptedScorer:
    """continuation_logprobs from a table: prompt containing "sure" -> all mass on 4."""

    model_id = "test/scripted-scorer"

    def __init__(self):
        self.calls = []

    def continuation_logprobs(self, prompts, candidates, use_chat_template=True):
        self.calls.append((list(prompts), tuple(candidates)))
        rows = []
        for prompt in prompts:
            p = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0] if "sure" in prompt else P
            rows.append(np.log(np.maximum(p, 1e-300)))
        return np.array(rows)

    def generate(self, prompts, params):  # distribution mode never generates
        raise AssertionError("distribution mode generated text")


def test_the_engine_scores_the_six_rating_tokens_in_one_call():
    scorer = ScriptedScorer()
    items = [JudgeItem(1, "q", "maybe"), JudgeItem(2, "q", "sure")]
    first, second = rate_items_distribution(items, scorer, CRUX_RUBRIC_V1)
    assert len(scorer.calls) == 1 and scorer.calls[0][1] == CANDIDATES
    assert first.rating == 2 and first.distribution == pytest.approx(P)
    assert "E = 2.30" in first.raw_output
    assert second.rating == 4 and second.distribution[4] == pytest.approx(1.0)
    assert rate_items_distribution([], scorer, CRUX_RUBRIC_V1) == []


@pytest.mark.models
def test_the_embedded_model_gives_a_distribution_over_0_to_5(embedded_generator):
    items = [JudgeItem(1, "When did the canal open?", "The canal opened in 1914.")]
    (rated,) = rate_items_distribution(items, embedded_generator, CRUX_RUBRIC_V1)
    assert sum(rated.distribution) == pytest.approx(1.0, abs=1e-5)
    assert rated.rating == int(np.argmax(rated.distribution))


@pytest.mark.django_db
def test_the_job_stores_distributions_under_a_judge_identity_of_its_own():
    data = make_small_collection()
    scorer = ScriptedScorer()
    params = JudgeJobParams(method=DISTRIBUTION, batch_size=4)
    assert params.prompt_version == DEFAULT_PROMPT_VERSION
    parsed = JudgeJobParams.from_params(params.as_params())
    assert parsed.prompt_version == DEFAULT_PROMPT_VERSION + VERSION_SUFFIX
    job = Job.objects.create(kind=KIND, params=parsed.as_params(), collection=data.collection)
    model = lambda name: JudgeModel(model_id=scorer.model_id, load=lambda: scorer)  # noqa: E731
    job = run_judge_job(job, model)
    assert job.state == Job.State.SUCCEEDED, job.message
    judge = Judge.objects.get(model_id=scorer.model_id)
    assert judge.prompt_version == DEFAULT_PROMPT_VERSION + VERSION_SUFFIX
    rows = Judgment.objects.filter(judge=judge)
    assert rows.count() > 0 and rows.filter(rating=2).count() == rows.count()
    assert all(d == pytest.approx(P) for d in rows.values_list("distribution", flat=True))
    # A greedy run of the same model is another judge: nothing of this one is reused.
    assert JudgeJobParams.from_params({"method": "llm"}).prompt_version == DEFAULT_PROMPT_VERSION
    with pytest.raises(ValueError, match="'method' must be one of"):
        JudgeJobParams.from_params({"method": "vibes"})


@pytest.mark.django_db
def test_the_command_runs_distribution_mode(monkeypatch):
    import io

    from django.core.management import call_command

    data = make_small_collection()
    scorer = ScriptedScorer()
    model = lambda name: JudgeModel(model_id=scorer.model_id, load=lambda: scorer)  # noqa: E731
    monkeypatch.setattr("evaluation.crux.tasks.judge_model_for", model)
    out = io.StringIO()
    call_command(
        "judge", "--collection", data.collection.name, "--distribution", stdout=out,
        stderr=io.StringIO(),
    )  # fmt: skip
    judge = Judge.objects.get(model_id=scorer.model_id)
    assert judge.prompt_version.endswith(VERSION_SUFFIX) and judge.name in out.getvalue()
    assert not Judgment.objects.filter(judge=judge, distribution__isnull=True).exists()
