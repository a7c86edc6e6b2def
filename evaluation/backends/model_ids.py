"""The workers' configured models as handles: the id a job records, known without loading the
model, and how to load it (called only when a job has something missing)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from evaluation.backends.model_loading import embedder_id, generator_id, llm_nli_generator_id
from evaluation.backends.registry import get_embedder, get_generator, get_nli


@dataclass(frozen=True)
class ModelHandle:
    model_id: str
    load: Callable[[], Any]


def generator_model() -> ModelHandle:
    return ModelHandle(model_id=generator_id(settings.GENERATOR_MODEL), load=get_generator)


def judge_model(model: str | None = None) -> ModelHandle:
    """The judge (None: JUDGE_MODEL, else the generator's model, as ``get_judge``)."""
    key = (settings.JUDGE_MODEL or settings.GENERATOR_MODEL) if model is None else model
    return ModelHandle(model_id=generator_id(key), load=lambda: get_generator(key))


def nli_model() -> ModelHandle:
    """The NLI model (an empty NLI_MODEL is the LLM NLI prompt on the generator)."""
    llm_id = llm_nli_generator_id(settings.NLI_MODEL)
    if llm_id is None:
        nli_id = settings.NLI_MODEL
    else:
        base = generator_id(llm_id) if llm_id else generator_id(settings.GENERATOR_MODEL)
        nli_id = f"llm-nli:{base}"
    return ModelHandle(model_id=nli_id, load=get_nli)


def embedder_model() -> ModelHandle:
    return ModelHandle(model_id=embedder_id(settings.EMBED_MODEL), load=get_embedder)
