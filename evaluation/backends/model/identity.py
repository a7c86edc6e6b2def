"""The ids results are recorded under, known without loading a model (no torch import).

Kept apart from ``loading`` so that code which only names models (job plans, cost
estimates, the registrations every process runs at start) does not pay torch's import.
"""

from pathlib import Path

from evaluation.backends.embedded import (
    EMBEDDED_EMBEDDER_ID,
    EMBEDDED_GENERATOR_ID,
    smollm2_gguf_path,
)

# NLI ids of the form "llm" or "llm:<generator id>" select the LLM-prompt NLI explicitly.
LLM_NLI_PREFIX = "llm"


def resolve_gguf(model_id: str) -> Path | None:
    """The GGUF file a model id names: empty means the embedded default; else a ``.gguf`` path."""
    if not model_id:
        return smollm2_gguf_path()
    if model_id.endswith(".gguf") and Path(model_id).is_file():
        return Path(model_id)
    return None


def generator_id(model_id: str) -> str:
    """The id results are recorded under (the embedded default has a fixed name)."""
    if not model_id:
        return EMBEDDED_GENERATOR_ID
    gguf = resolve_gguf(model_id)
    return gguf.name if gguf else model_id


def llm_nli_generator_id(nli_id: str) -> str | None:
    """Generator id named by an LLM-NLI id ("" for the configured generator), else None."""
    if not nli_id:
        return ""
    if nli_id == LLM_NLI_PREFIX:
        return ""
    if nli_id.startswith(LLM_NLI_PREFIX + ":"):
        return nli_id.removeprefix(LLM_NLI_PREFIX + ":")
    return None


def embedder_id(model_id: str) -> str:
    """The id results are recorded under (the embedded default has a fixed name)."""
    return model_id or EMBEDDED_EMBEDDER_ID
