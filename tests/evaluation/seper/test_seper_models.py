"""SePer end to end on the embedded models (plumbing: shapes, cache reuse, one NLI call)."""

import json

import numpy as np
import pytest

from evaluation.seper.engine import SeperContext, SeperQuestion, score_batch
from evaluation.seper.sampling import SamplingParams
from tests.evaluation.seper.seper_doubles import CountingGenerator, CountingNLI, WordNLI

pytestmark = pytest.mark.models

QUESTIONS = [
    SeperQuestion(
        "What is the capital of France?",
        ("Paris",),
        (SeperContext("p1", "Paris is the capital and largest city of France."),),
    ),
    SeperQuestion(
        "Who wrote Pride and Prejudice?",
        ("Jane Austen", "Austen"),
        (SeperContext("p2", "Pride and Prejudice is an 1813 novel by Jane Austen."),),
    ),
]
# Two samples: the LLM NLI takes ~0.5 s a pair on one CPU thread, and pairs grow as n^2.
PARAMS = SamplingParams(n_samples=2, max_new_tokens=8, seed=3)


def test_seper_on_the_embedded_models_samples_once_and_reuses_the_cache(
    embedded_generator, llm_nli
):
    generator, nli, cache = CountingGenerator(embedded_generator), CountingNLI(llm_nli), {}
    first = score_batch(QUESTIONS, generator, nli, PARAMS, cache)
    assert generator.generate_calls == 1 and len(generator.prompts) == 4
    assert nli.predict_calls == 1 and nli.pairs == first.stats.nli_pairs_scored
    assert len(cache) == 4

    for question, result in zip(QUESTIONS, first.results, strict=True):
        m = len(question.golds)
        for ctx in [result.baseline, *result.contexts]:
            score = ctx.score
            assert score.kernel.shape == (2, m) and score.gold_masses.shape == (m,)
            assert np.all((score.kernel >= 0) & (score.kernel <= 1))
            assert score.weights.sum() == pytest.approx(1.0)
            assert sorted(i for c in score.clusters for i in c.members) == [0, 1]
            assert 0 <= score.hard <= 1 and 0 <= score.soft <= 1
            assert len(ctx.responses) == 2
            for response in ctx.responses:
                assert len(response.tokens) == len(response.token_logprobs)
                assert "\n" not in response.text
                if response.token_logprobs:
                    assert response.score == pytest.approx(np.mean(response.token_logprobs))
        (passage,) = result.contexts
        assert passage.delta.soft == pytest.approx(passage.score.soft - result.baseline.score.soft)
        assert "Context: " in passage.sample_key.prompt
        assert "Context: " not in result.baseline.sample_key.prompt

    json.dumps(first.to_dict())  # storable as is

    # Scoring again (here with a cheap word-overlap NLI: the LLM NLI takes ~0.5 s a pair on
    # one CPU thread) takes every sample from the cache.
    second = score_batch(QUESTIONS, generator, WordNLI(), PARAMS, cache)
    assert generator.generate_calls == 1
    assert second.stats.prompts_cached == 4 and second.stats.prompts_sampled == 0
    for a, b in zip(first.results, second.results, strict=True):
        for x, y in zip([a.baseline, *a.contexts], [b.baseline, *b.contexts], strict=True):
            assert [r.text for r in x.responses] == [r.text for r in y.responses]
            np.testing.assert_array_equal(x.score.weights, y.score.weights)
