"""The per-process model registry and the prepare_models command, on the embedded models."""

from io import StringIO

import pytest
from django.core.management import call_command

from evaluation.backends import registry
from evaluation.backends.causal_lm_loading import gguf_cache_dir
from evaluation.backends.embedded import (
    EMBEDDED_EMBEDDER_ID,
    EMBEDDED_GENERATOR_ID,
    smollm2_gguf_path,
)
from evaluation.backends.nli_classifier import ClassifierNLI
from evaluation.backends.nli_llm_prompt import LLMPromptNLI

pytestmark = pytest.mark.models

NLI_LABELS_PERMUTED = {0: "contradiction", 1: "entailment", 2: "neutral"}


@pytest.fixture
def embedded_settings(settings, model_cache_dir):
    settings.GENERATOR_MODEL = settings.JUDGE_MODEL = settings.NLI_MODEL = ""
    settings.EMBED_MODEL = settings.TOKENIZER_MODEL = ""
    settings.MODEL_CACHE_DIR = model_cache_dir
    settings.MODEL_DEVICE = "cpu"
    registry.clear()
    yield settings
    registry.clear()


def test_registry_builds_each_default_once_and_shares_the_generator(embedded_settings):
    generator = registry.get_generator()
    assert generator.model_id == EMBEDDED_GENERATOR_ID
    assert registry.get_generator() is generator
    assert registry.get_generator("") is generator
    assert registry.get_judge() is generator
    assert registry.get_token_counter() is generator
    nli = registry.get_nli()
    assert isinstance(nli, LLMPromptNLI) and nli.generator is generator
    assert registry.get_nli() is nli
    embedder = registry.get_embedder()
    assert embedder.model_id == EMBEDDED_EMBEDDER_ID and registry.get_embedder() is embedder


def test_registry_loads_a_classifier_when_nli_model_is_set(embedded_settings, tiny_nli_factory):
    embedded_settings.NLI_MODEL = str(tiny_nli_factory(NLI_LABELS_PERMUTED))
    nli = registry.get_nli()
    assert isinstance(nli, ClassifierNLI) and nli.columns == [1, 2, 0]
    assert nli.predict([("a", "b")]).shape == (1, 3)


def test_prepare_models_fills_the_cache_and_is_idempotent(embedded_settings, model_cache_dir):
    first = StringIO()
    call_command("prepare_models", stdout=first)
    folder = gguf_cache_dir(smollm2_gguf_path(), model_cache_dir)
    assert (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()
    assert (folder / "tokenizer.json").is_file()
    assert f"{EMBEDDED_GENERATOR_ID} loaded and ran" in first.getvalue()
    assert f"{EMBEDDED_EMBEDDER_ID} loaded and ran" in first.getvalue()
    assert "models ready" in first.getvalue()
    second = StringIO()
    call_command("prepare_models", "--skip-warm", stdout=second)
    assert f"already converted at {folder}" in second.getvalue()
    # The registry's generator was read from the cache folder, not from the GGUF file.
    generator = registry.get_generator()
    assert generator.model.name_or_path == str(folder)
    assert generator.count_tokens(["Paris"]) == [1]
