"""The workers' configured models as handles: the id a job records, known without loading the
model, and how to load it (called only when a job has something missing)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from evaluation.backends.model.identity import embedder_id, generator_id, llm_nli_generator_id
from evaluation.backends.model.server import (
    ServerConfig,
    generator_server,
    judge_server,
    nli_server,
)
from evaluation.backends.registry import get_embedder, get_generator, get_judge, get_nli, get_served


@dataclass(frozen=True)
class ModelHandle:
    model_id: str
    load: Callable[[], Any]
    server: ServerConfig | None = None  # the model server answering for it, if any

    def require_logprobs(self, needed_for: str) -> None:
        """Refuse (``BackendCapabilityError``) when the server returns no token log-probs.

        Local models always have them and are not loaded for this; a server is asked once.
        """
        if self.server is not None:
            from evaluation.backends.openai_generator import require_logprobs

            require_logprobs(get_served(self.server), needed_for)


def _generator_id() -> str:
    server = generator_server()
    return server.identity if server else generator_id(settings.GENERATOR_MODEL)


def generator_model() -> ModelHandle:
    return ModelHandle(model_id=_generator_id(), load=get_generator, server=generator_server())


def judge_model(model: str | None = None) -> ModelHandle:
    """The judge (None: JUDGE_MODEL, else the generator's model, as ``get_judge``)."""
    if (server := judge_server(model)) is not None:
        return ModelHandle(model_id=server.identity, load=lambda: get_judge(model), server=server)
    key = (settings.JUDGE_MODEL or settings.GENERATOR_MODEL) if model is None else model
    return ModelHandle(model_id=generator_id(key), load=lambda: get_generator(key))


def nli_model() -> ModelHandle:
    """The NLI model (an empty NLI_MODEL is the LLM NLI prompt on the generator)."""
    if (server := nli_server()) is not None:
        return ModelHandle(model_id=f"llm-nli:{server.identity}", load=get_nli, server=server)
    llm_id = llm_nli_generator_id(settings.NLI_MODEL)
    if llm_id is None:
        return ModelHandle(model_id=settings.NLI_MODEL, load=get_nli)
    # The LLM NLI prompt on the generator: on its server when it has one.
    server = None if llm_id else generator_server()
    base = server.identity if server else generator_id(llm_id or settings.GENERATOR_MODEL)
    return ModelHandle(model_id=f"llm-nli:{base}", load=get_nli, server=server)


def embedder_model() -> ModelHandle:
    return ModelHandle(model_id=embedder_id(settings.EMBED_MODEL), load=get_embedder)
