"""Which roles go to a model server, and under which identity their results are stored."""

from __future__ import annotations

import pytest

from evaluation.backends import registry
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.backends.model.ids import generator_model, judge_model, nli_model
from evaluation.backends.model.server import ModelServerError, judge_server
from evaluation.backends.nli_llm_prompt import LLMPromptNLI
from evaluation.backends.openai_generator import OpenAIGenerator

KEY = "sk-settings-secret-123"


@pytest.fixture
def model_settings(settings):
    for name in ("GENERATOR", "JUDGE", "NLI"):
        setattr(settings, f"{name}_MODEL", "")
        setattr(settings, f"{name}_API_BASE", "")
        setattr(settings, f"{name}_API_KEY", "")
    registry.clear()
    yield settings
    registry.clear()


def test_without_servers_every_role_is_local(model_settings):
    assert generator_model().model_id == judge_model().model_id == EMBEDDED_GENERATOR_ID
    assert generator_model().server is None and judge_model().server is None
    assert nli_model().model_id == f"llm-nli:{EMBEDDED_GENERATOR_ID}"


def test_a_judge_server_serves_the_judge_only(model_settings):
    model_settings.JUDGE_API_BASE = "http://judge.example:8000/v1/"
    model_settings.JUDGE_MODEL = "meta-llama/Llama-3.1-70B-Instruct"
    model_settings.JUDGE_API_KEY = KEY
    handle = judge_model()
    assert handle.model_id == "openai-api:meta-llama/Llama-3.1-70B-Instruct"
    assert handle.server.base_url == "http://judge.example:8000/v1"
    assert KEY not in repr(handle) and KEY not in handle.server.where
    judge = handle.load()  # building the client sends no request
    assert isinstance(judge, OpenAIGenerator) and judge.client.api_key == KEY
    assert registry.get_judge() is judge
    # A job naming its own model asks the same server for that model.
    assert judge_model("qwen2.5-7b").model_id == "openai-api:qwen2.5-7b"
    assert generator_model().model_id == EMBEDDED_GENERATOR_ID


def test_a_generator_server_also_serves_the_default_judge_and_llm_nli(model_settings):
    model_settings.GENERATOR_API_BASE = "https://api.example.com/v1"
    model_settings.GENERATOR_MODEL = "gpt-4o-mini"
    assert generator_model().model_id == judge_model().model_id == "openai-api:gpt-4o-mini"
    assert nli_model().model_id == "llm-nli:openai-api:gpt-4o-mini"
    assert nli_model().server == generator_model().server
    nli = registry.get_nli()
    assert isinstance(nli, LLMPromptNLI) and nli.generator is registry.get_generator()
    # A judge of its own (JUDGE_MODEL without a server) is local again.
    model_settings.JUDGE_MODEL = "HuggingFaceTB/SmolLM2-360M-Instruct"
    assert judge_server() is None
    assert judge_model().model_id == "HuggingFaceTB/SmolLM2-360M-Instruct"


def test_an_nli_server_has_its_own_identity(model_settings):
    model_settings.NLI_API_BASE = "http://nli.example/v1"
    model_settings.NLI_MODEL = "mistral-7b"
    assert nli_model().model_id == "llm-nli:openai-api:mistral-7b"
    assert isinstance(registry.get_nli(), LLMPromptNLI)


@pytest.mark.parametrize(
    "base, model, message",
    [
        ("http://judge.example/v1", "", "JUDGE_MODEL must name the served model"),
        ("judge.example:8000", "m", r"is not an http\(s\) URL"),
        ("ftp://judge.example/v1", "m", r"is not an http\(s\) URL"),
    ],
)
def test_incomplete_server_settings_are_named(model_settings, base, model, message):
    model_settings.JUDGE_API_BASE, model_settings.JUDGE_MODEL = base, model
    with pytest.raises(ModelServerError, match=message):
        judge_model()
