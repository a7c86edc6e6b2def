"""The OpenAI-compatible backend against a real ``transformers serve`` process on the embedded
model: chat and raw completions, samples, token accounting, errors that name the server and the
model (never the key), and the refusal when the server returns no log-probabilities."""

from __future__ import annotations

import time

import numpy as np
import pytest

from evaluation.backends import token_usage
from evaluation.backends.base import GenerationParams
from evaluation.backends.model.server import BackendCapabilityError, ModelServerError
from evaluation.backends.openai_generator import OpenAIGenerator, require_logprobs
from tests.model_server import free_port

pytestmark = pytest.mark.models

SECRET = "sk-test-secret-never-shown-4242"


@pytest.fixture(scope="module")
def served(served_model) -> OpenAIGenerator:
    return OpenAIGenerator(served_model.config(api_key=SECRET))


def test_chat_generation_is_greedy_and_repeated_per_sample(served, served_model):
    assert served.has_logprobs is False  # probed once (its tokens are counted too)
    token_usage.take()
    params = GenerationParams(max_new_tokens=6, num_samples=2)
    with token_usage.acting_as(token_usage.JUDGE):  # the requests run on the client's threads
        [[first, second], [other, _]] = served.generate(["Say hello.", "Name a colour."], params)
    assert first.text and first.text == second.text  # greedy: one request, copied
    assert first is not second
    assert other.text
    assert first.finish_reason in {"stop", "length"}
    assert first.tokens == [] and first.token_logprobs == []  # the server gives no log-probs
    usage = token_usage.take()
    assert set(usage) == {"judge"}  # every request under the caller's role
    judge = usage["judge"]
    assert judge.calls == 2  # greedy: one request per prompt
    assert judge.prompt_tokens > 0 and 0 < judge.completion_tokens <= 12
    assert judge.forward_tokens == judge.prompt_tokens + judge.completion_tokens
    assert served.model_id == f"openai-api:{served_model.model}"


def test_sampled_generations_use_one_seeded_request_each(served):
    params = GenerationParams(max_new_tokens=8, temperature=1.0, num_samples=3, seed=7)
    [samples] = served.generate(["Write one word about the sea."], params)
    [again] = served.generate(["Write one word about the sea."], params)
    assert len(samples) == 3
    assert [g.text for g in samples] == [g.text for g in again]  # seeds make it repeatable


def test_raw_prompts_go_to_the_completions_endpoint(served):
    params = GenerationParams(max_new_tokens=5, use_chat_template=False)
    [[generation]] = served.generate(["The capital of France is"], params)
    assert generation.text


def test_stop_strings_cut_the_text_client_side(served):
    params = GenerationParams(max_new_tokens=24, stop=("\n", ".", ",", "!", "?", " "))
    [[generation]] = served.generate(["Count from one to ten in words."], params)
    assert not any(s in generation.text for s in params.stop)


def test_a_server_without_logprobs_is_refused_with_its_url_and_model(served, served_model):
    assert served.has_logprobs is False
    with pytest.raises(BackendCapabilityError) as error:
        served.continuation_logprobs(["Rate it 0-5."], ["0", "1"])
    message = str(error.value)
    assert served_model.base_url in message and served_model.model in message
    assert "log-probabilities" in message and "vllm serve" in message
    with pytest.raises(BackendCapabilityError, match="SePer"):
        require_logprobs(served, "SePer")
    with pytest.raises(BackendCapabilityError, match="teacher"):
        served.score_continuations(["q"], ["a"])
    with pytest.raises(BackendCapabilityError, match="TOKENIZER_MODEL"):
        served.count_tokens(["a"])


def test_an_unknown_model_is_a_clear_error_without_the_key(served_model):
    generator = OpenAIGenerator(served_model.config(model="no-such-model", api_key=SECRET))
    with pytest.raises(ModelServerError) as error:
        generator.generate(["Hi"], GenerationParams(max_new_tokens=1))
    message = str(error.value)
    assert served_model.base_url in message and "'no-such-model'" in message
    assert "HTTP 400" in message and "pinned" in message  # the server's own reason
    assert SECRET not in message and SECRET not in repr(generator.config)


def test_an_unreachable_server_is_retried_with_backoff_then_named(served_model):
    url = f"http://127.0.0.1:{free_port()}/v1"
    generator = OpenAIGenerator(
        served_model.config(base_url=url, api_key=SECRET, max_retries=2, timeout_s=2.0)
    )
    started = time.monotonic()
    with pytest.raises(ModelServerError) as error:
        generator.generate(["Hi"], GenerationParams(max_new_tokens=1))
    elapsed = time.monotonic() - started
    assert str(error.value) == (
        f"model server {url} (model {served_model.model!r}) is unreachable (3 tries)"
    )
    # Two backoffs of 0.5 s and 1 s, each shortened by at most 25 % jitter.
    assert elapsed >= 0.75 * 1.5


# A server that returns log-probs (as vLLM does): the same numbers as the local backend.


@pytest.fixture(scope="module")
def with_logprobs(logprob_served_model) -> OpenAIGenerator:
    return OpenAIGenerator(logprob_served_model.config())


def test_served_token_logprobs_match_the_local_model(with_logprobs, embedded_generator):
    assert with_logprobs.has_logprobs is True
    params = GenerationParams(max_new_tokens=6)
    [[served]] = with_logprobs.generate(["Name a fruit."], params)
    [[local]] = embedded_generator.generate(["Name a fruit."], params)
    assert served.text == local.text
    assert served.tokens == local.tokens and "".join(served.tokens) == served.text
    assert served.token_logprobs == pytest.approx(local.token_logprobs, abs=1e-4)


def test_served_candidate_logprobs_match_the_local_model_for_one_token_candidates(
    with_logprobs, embedded_generator
):
    prompts = ["Rate from 0 to 5 how sunny Spain is. Answer with one digit.", "Is ice cold?"]
    candidates = ["0", "1", "2", "3", "4", "5"]
    served = with_logprobs.continuation_logprobs(prompts, candidates)
    local = embedded_generator.continuation_logprobs(prompts, candidates)
    assert served.shape == local.shape == (2, 6)
    exact = np.isclose(served, local, atol=1e-4)
    assert exact[np.arange(2), local.argmax(1)].all()  # the likeliest digit is in the top 20
    for row in range(2):
        # A candidate outside the server's top 20 gets the 20th log-prob: one value per row,
        # an upper bound on each such candidate's own.
        floored = served[row, ~exact[row]]
        assert floored.size == 0 or np.ptp(floored) < 1e-9
        assert (floored >= local[row, ~exact[row]]).all()


def test_raw_prompt_logprobs_come_from_the_completions_endpoint(with_logprobs, embedded_generator):
    params = GenerationParams(max_new_tokens=4, use_chat_template=False)
    [[served]] = with_logprobs.generate(["The capital of France is"], params)
    [[local]] = embedded_generator.generate(["The capital of France is"], params)
    assert served.tokens == local.tokens
    assert served.token_logprobs == pytest.approx(local.token_logprobs, abs=1e-4)


def test_a_404_for_an_unknown_model_names_it(logprob_served_model):
    generator = OpenAIGenerator(logprob_served_model.config(model="llama-9000"))
    with pytest.raises(ModelServerError, match=r"HTTP 404.*'llama-9000' does not exist"):
        generator.generate(["Hi"], GenerationParams(max_new_tokens=1))


@pytest.mark.parametrize("status", [429, 503])
def test_rate_limits_and_server_errors_are_retried(logprob_served_model, status):
    logprob_served_model.inject_faults(fail_next=2, status=status)
    generator = OpenAIGenerator(logprob_served_model.config(max_retries=2), logprobs=True)
    [[generation]] = generator.generate(["Say hi."], GenerationParams(max_new_tokens=2))
    assert generation.text and generation.token_logprobs
    assert logprob_served_model.stats()["requests"] == 3  # two refused, the third answered


def test_a_server_that_keeps_failing_fails_the_call_with_its_status(logprob_served_model):
    logprob_served_model.inject_faults(fail_next=100, status=503)
    generator = OpenAIGenerator(logprob_served_model.config(max_retries=1), logprobs=True)
    try:
        with pytest.raises(ModelServerError, match="HTTP 503.*injected fault"):
            generator.generate(["Say hi."], GenerationParams(max_new_tokens=2))
        assert logprob_served_model.stats()["requests"] == 2
    finally:
        logprob_served_model.inject_faults(fail_next=0)


def test_requests_in_flight_never_exceed_the_bound(logprob_served_model):
    logprob_served_model.inject_faults(delay=0.2)
    generator = OpenAIGenerator(logprob_served_model.config(max_concurrency=3), logprobs=True)
    params = GenerationParams(max_new_tokens=1, temperature=1.0, num_samples=4, seed=1)
    try:
        results = generator.generate(["a", "b", "c"], params)
    finally:
        stats = logprob_served_model.stats()
        logprob_served_model.inject_faults(delay=0.0)
    assert [len(r) for r in results] == [4, 4, 4]
    assert stats["requests"] == 12 and stats["max_in_flight"] == 3
