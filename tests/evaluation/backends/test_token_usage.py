"""Model calls and tokens are recorded per role on the embedded models: one generator serving as
generator, judge and (through the LLM NLI prompt) NLI model keeps three accounts; the embedder
names its own role; a call outside any role is "other"; the figures are the forward passes."""

from __future__ import annotations

import pytest

from crux_app.jobs.usage import ModelUsage
from evaluation.backends import token_usage
from evaluation.backends.base import GenerationParams
from evaluation.backends.checked_generation import first_samples
from evaluation.backends.nli_llm_prompt import nli_prompt
from evaluation.backends.token_usage import EMBEDDER, GENERATOR, JUDGE, NLI, OTHER, acting_as

pytestmark = pytest.mark.models

PROMPTS = ["What is the capital of France?", "Name a colour."]


def test_one_generator_keeps_an_account_per_role(embedded_generator, llm_nli, embedder):
    token_usage.take()
    params = GenerationParams(max_new_tokens=4)
    answers = first_samples(embedded_generator, PROMPTS, params)  # "generator" by default
    first_samples(embedded_generator, PROMPTS[:1], params, role=JUDGE)
    with acting_as(JUDGE):
        embedded_generator.continuation_logprobs(PROMPTS, ["1", "2"])
        llm_nli.predict([("It rains.", "It is wet.")])  # the NLI model names its own role
        embedder.embed(["one text", "another, longer text"])
    usage = token_usage.take()
    assert set(usage) == {GENERATOR, JUDGE, NLI, EMBEDDER}
    generator, judge, nli, embedded = (usage[r] for r in (GENERATOR, JUDGE, NLI, EMBEDDER))
    encoded = [len(ids) for ids in embedded_generator.encode_prompts(PROMPTS, True)]
    assert generator.prompt_tokens == sum(encoded)
    assert generator.completion_tokens == sum(len(a.token_ids) for a in answers) > 0
    # A pass per generated token, plus the prefill's (the prompts' shared prefix first).
    longest = max(len(a.token_ids) for a in answers)
    assert longest <= generator.calls <= params.max_new_tokens + 2
    # The shared prefix ran once, not once per prompt: fewer positions than tokens in and out.
    assert generator.completion_tokens < generator.forward_tokens < sum(encoded) + 8
    # The judge's generation (prompt 0) and its scoring of both prompts (no completion there).
    assert judge.prompt_tokens == encoded[0] + sum(encoded)
    assert judge.calls >= 3 and judge.completion_tokens <= params.max_new_tokens
    nli_prompt = embedded_generator.encode_prompts([nli_prompt_text()], True)[0]
    assert (nli.prompt_tokens, nli.completion_tokens) == (len(nli_prompt), 0)
    assert nli.calls >= 1 and nli.forward_tokens >= len(nli_prompt)
    # The embedder: one pass over the two texts, padded to the longer one.
    ids = embedder.model.tokenize(["one text", "another, longer text"])["input_ids"]
    assert (embedded.calls, embedded.forward_tokens) == (1, ids.shape[0] * ids.shape[1])
    assert embedded.prompt_tokens == embedded.completion_tokens == 0
    assert token_usage.take() == {}  # taken: the next batch starts from nothing


def nli_prompt_text() -> str:
    return nli_prompt("It rains.", "It is wet.")


def test_a_call_outside_any_role_is_other_and_roles_are_a_closed_list(embedded_generator):
    token_usage.take()
    embedded_generator.continuation_logprobs(PROMPTS[:1], ["1"])
    usage = token_usage.take()
    # One prompt, one-token candidates: one pass over the prompt's tokens.
    [prompt] = embedded_generator.encode_prompts(PROMPTS[:1], True)
    assert usage == {OTHER: ModelUsage(1, len(prompt), 0, len(prompt))}
    with pytest.raises(ValueError, match="unknown model role 'grader'"), acting_as("grader"):
        pass
