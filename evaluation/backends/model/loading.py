"""Build backends from model ids without Django: the registry and the bench both use these.

Model ids are hub ids or local paths; an empty id means the embedded offline default.
"""

from collections.abc import Callable, Sequence
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from evaluation.backends.base import Generator
from evaluation.backends.causal_lm_loading import load_causal_lm, load_causal_lm_tokenizer
from evaluation.backends.devices import dtype_for
from evaluation.backends.embedded import minilm_dir
from evaluation.backends.model.identity import (
    embedder_id,
    generator_id,
    llm_nli_generator_id,
    resolve_gguf,
)
from evaluation.backends.nli_classifier import ClassifierNLI
from evaluation.backends.nli_llm_prompt import LLMPromptNLI
from evaluation.backends.sentence_embedder import SentenceEmbedder
from evaluation.backends.transformers_generator import TransformersGenerator


def build_generator(model_id: str, cache_root: Path, device: torch.device) -> TransformersGenerator:
    loaded = load_causal_lm(model_id, cache_root, device, dtype_for(device))
    return TransformersGenerator(loaded.model, loaded.tokenizer, generator_id(model_id))


def build_classifier_nli(model_id: str, device: torch.device) -> ClassifierNLI:
    local = Path(model_id).is_dir()
    tokenizer = AutoTokenizer.from_pretrained(model_id, local_files_only=local)
    model = AutoModelForSequenceClassification.from_pretrained(
        model_id, dtype=dtype_for(device), local_files_only=local
    )
    model.to(device).eval()
    return ClassifierNLI(model, tokenizer, model_id)


def build_nli(
    nli_id: str, get_generator: Callable[[str | None], Generator], device: torch.device
) -> ClassifierNLI | LLMPromptNLI:
    """Empty / "llm" / "llm:<id>": DENSE's prompt on a generator; otherwise a classifier."""
    llm_id = llm_nli_generator_id(nli_id)
    if llm_id is None:
        return build_classifier_nli(nli_id, device)
    # "" asks for the configured generator, which the callback resolves.
    return LLMPromptNLI(get_generator(llm_id or None))


def build_embedder(model_id: str, device: torch.device) -> SentenceEmbedder:
    source = model_id or minilm_dir()
    return SentenceEmbedder.load(source, embedder_id(model_id), device, dtype_for(device))


class TokenizerCounter:
    """``TokenCounter`` on a bare tokenizer (density's configurable tokenizer)."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        return [len(i) for i in self.tokenizer(list(texts), add_special_tokens=False)["input_ids"]]


def build_token_counter(model_id: str) -> TokenizerCounter:
    local = Path(model_id).is_dir()
    return TokenizerCounter(AutoTokenizer.from_pretrained(model_id, local_files_only=local))


def build_generator_token_counter(model_id: str, cache_root: Path) -> TokenizerCounter:
    """The generator's tokenizer alone: counts as its ``count_tokens`` does, loads no weights."""
    return TokenizerCounter(load_causal_lm_tokenizer(model_id, cache_root))


def build_local_token_counter(model_id: str, cache_root: Path) -> TokenizerCounter:
    """A model's tokenizer from local files only, never the hub (cost estimates in a web
    request): a folder, a GGUF file or the embedded default, or the Hugging Face cache the
    workers filled; ``OSError`` when it is not on this machine."""
    if resolve_gguf(model_id) is None:
        return TokenizerCounter(AutoTokenizer.from_pretrained(model_id, local_files_only=True))
    return build_generator_token_counter(model_id, cache_root)
