"""One instance of each model per process, built from the model settings.

Settings (crux_app.settings.model_backends): GENERATOR_MODEL, JUDGE_MODEL, NLI_MODEL, EMBED_MODEL,
TOKENIZER_MODEL, MODEL_CACHE_DIR, MODEL_DEVICE. Empty ids mean the embedded defaults; an empty
NLI_MODEL means DENSE's LLM NLI prompt on the generator; an empty JUDGE_MODEL or TOKENIZER_MODEL
means the generator's model. GENERATOR_API_BASE, JUDGE_API_BASE and NLI_API_BASE put a role on
an OpenAI-compatible server (``model.server``).
"""

import threading
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings

from evaluation.backends.base import Embedder, Generator, NLIModel, TokenCounter
from evaluation.backends.model.server import (
    ServerConfig,
    generator_server,
    judge_server,
    nli_server,
)
from evaluation.backends.nli_llm_prompt import LLMPromptNLI

T = TypeVar("T")
_instances: dict[tuple[str, str], object] = {}
# Re-entrant: building the LLM NLI asks for the generator while holding the lock.
_lock = threading.RLock()


def _configure_torch_threads() -> None:
    """Apply TORCH_NUM_THREADS: oversubscribed CPU workers generate up to 10x slower."""
    if settings.TORCH_NUM_THREADS > 0:
        import torch

        torch.set_num_threads(settings.TORCH_NUM_THREADS)


def _cached(kind: str, key: str, build: Callable[[], T]) -> T:
    with _lock:
        if (kind, key) not in _instances:
            if not _instances:
                _configure_torch_threads()
            _instances[(kind, key)] = build()
        return _instances[(kind, key)]  # type: ignore[return-value]


def _device():
    from evaluation.backends.devices import resolve_device

    return resolve_device(settings.MODEL_DEVICE)


def _loading():
    """``model.loading``, imported on first use: every process imports this registry at start
    (job plans name models), and torch's import costs seconds that a web process never needs."""
    from evaluation.backends.model import loading

    return loading


def get_served(server: ServerConfig) -> Generator:
    """The client of one served model (one per server and model, shared by its roles)."""
    from evaluation.backends.openai_generator import OpenAIGenerator

    key = f"{server.base_url} {server.model}"
    return _cached("server", key, lambda: OpenAIGenerator(server))


def get_generator(model_id: str | None = None) -> Generator:
    """The generator for ``model_id`` (default: GENERATOR_MODEL, on its server when it has one)."""
    if model_id is None and (server := generator_server()) is not None:
        return get_served(server)
    key = settings.GENERATOR_MODEL if model_id is None else model_id
    build = _loading().build_generator
    return _cached("generator", key, lambda: build(key, settings.MODEL_CACHE_DIR, _device()))


def get_judge(model: str | None = None) -> Generator:
    """The judge LLM: ``model`` or JUDGE_MODEL (the generator's when empty), served or local."""
    if (server := judge_server(model)) is not None:
        return get_served(server)
    return get_generator(model or settings.JUDGE_MODEL or None)


def get_nli() -> NLIModel:
    if (server := nli_server()) is not None:
        return _cached("nli", server.identity, lambda: LLMPromptNLI(get_served(server)))
    key = settings.NLI_MODEL
    return _cached("nli", key, lambda: _loading().build_nli(key, get_generator, _device()))


def get_embedder() -> Embedder:
    key = settings.EMBED_MODEL
    return _cached("embedder", key, lambda: _loading().build_embedder(key, _device()))


def get_token_counter() -> TokenCounter:
    """Density's tokenizer (TOKENIZER_MODEL; the generator's tokenizer when empty).

    A tokenizer only, never a model's weights: web processes count tokens for the leaderboard.
    A process that holds the generator already (a worker) counts with its tokenizer."""
    key = settings.TOKENIZER_MODEL
    if key:
        return _cached("tokenizer", key, lambda: _loading().build_token_counter(key))
    if (server := generator_server()) is not None:
        return get_served(server)  # its count_tokens names TOKENIZER_MODEL as the way out
    key = settings.GENERATOR_MODEL
    with _lock:
        loaded = _instances.get(("generator", key))
    if loaded is not None:
        return loaded  # type: ignore[return-value]
    return _cached(
        "generator-tokenizer",
        key,
        lambda: _loading().build_generator_token_counter(key, settings.MODEL_CACHE_DIR),
    )


def get_local_token_counter(model_id: str) -> TokenCounter:
    """The tokenizer of ``model_id`` ("" : the embedded generator) alone, from local files only
    (``build_local_token_counter``: cost estimates never reach for the hub); a process that
    holds that generator already counts with its tokenizer."""
    with _lock:
        loaded = _instances.get(("generator", model_id))
    if loaded is not None:
        return loaded  # type: ignore[return-value]
    return _cached(
        "local-tokenizer",
        model_id,
        lambda: _loading().build_local_token_counter(model_id, settings.MODEL_CACHE_DIR),
    )


def clear() -> None:
    """Forget every loaded model (tests that change the model settings)."""
    with _lock:
        _instances.clear()
