"""Prompt tokens of a sample of a job's prompts for its cost estimate (``crux_app.jobs.estimate``),
counted with the model's tokenizer from local files only: a web request never waits on the hub.
When no tokenizer is at hand the count is left unknown, with the reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from evaluation.backends.model.identity import generator_id
from evaluation.backends.model.server import generator_server


@dataclass(frozen=True)
class SampleTokens:
    counts: tuple[int, ...] = ()  # empty: not counted (see note)
    tokenizer: str = ""
    note: str = ""

    def fields(self) -> dict[str, Any]:
        """As ``WorkLeft`` keyword arguments."""
        return {"sample_prompt_tokens": self.counts, "tokenizer": self.tokenizer} | (
            {"tokens_note": self.note} if self.note else {}
        )


def local_tokens(texts: Sequence[str], model: str, shown: str, role: str) -> SampleTokens:
    """Tokens of each text under ``model``'s tokenizer ("" : the embedded generator's)."""
    from evaluation.backends.registry import get_local_token_counter  # pulls in transformers

    try:
        counter = get_local_token_counter(model)
    except (OSError, ValueError, RuntimeError):  # not on this machine: never the hub here
        return SampleTokens(note=f"the {role}'s tokenizer {shown!r} is not on this machine")
    return SampleTokens(tuple(counter.count_tokens(list(texts))), shown)


def served_tokens(texts: Sequence[str], role: str) -> SampleTokens:
    """A served model's tokens: its tokenizer is TOKENIZER_MODEL, or unknown."""
    if not settings.TOKENIZER_MODEL:
        return SampleTokens(
            note=f"set TOKENIZER_MODEL to the served {role}'s tokenizer to count its prompt tokens"
        )
    return local_tokens(texts, settings.TOKENIZER_MODEL, settings.TOKENIZER_MODEL, role)


def generator_tokens(texts: Sequence[str]) -> SampleTokens:
    """Tokens of each text under the generator's tokenizer (TOKENIZER_MODEL when set)."""
    if generator_server() is not None:
        return served_tokens(texts, "generator")
    name = settings.TOKENIZER_MODEL or settings.GENERATOR_MODEL
    return local_tokens(texts, name, name or generator_id(name), "generator")
