"""Contracts every model backend implements; methods depend on these, never on a library."""

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

# Column order of every NLI probability matrix in the app.
NLI_LABELS: tuple[str, str, str] = ("entailment", "neutral", "contradiction")


@dataclass(frozen=True)
class GenerationParams:
    max_new_tokens: int = 32
    temperature: float = 0.0  # 0 means greedy decoding
    top_p: float = 1.0
    num_samples: int = 1
    stop: tuple[str, ...] = ()
    seed: int | None = None
    use_chat_template: bool = True
    system_prompt: str | None = None


@dataclass
class Generation:
    """One sampled continuation; token lists are aligned and cover exactly ``text``."""

    text: str
    tokens: list[str] = field(default_factory=list)
    token_ids: list[int] = field(default_factory=list)
    token_logprobs: list[float] = field(default_factory=list)
    finish_reason: str = "length"  # "stop" (stop string or EOS) or "length"

    def copy(self) -> "Generation":
        """An independent copy, lists included (a greedy prompt's samples are copies)."""
        return replace(
            self,
            tokens=list(self.tokens),
            token_ids=list(self.token_ids),
            token_logprobs=list(self.token_logprobs),
        )


class Generator(Protocol):
    model_id: str

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[list[Generation]]:
        """For each prompt, ``params.num_samples`` generations (batched internally)."""
        ...

    def continuation_logprobs(
        self, prompts: Sequence[str], candidates: Sequence[str], use_chat_template: bool = True
    ) -> np.ndarray:
        """Log-probability of each candidate continuation per prompt, shape (prompts, cands)."""
        ...

    def score_continuations(
        self, prompts: Sequence[str], continuations: Sequence[str], use_chat_template: bool = True
    ) -> list[Generation]:
        """Teacher-forced per-token log-probs of each existing continuation after its prompt."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...


class NLIModel(Protocol):
    model_id: str

    def predict(
        self, pairs: Sequence[tuple[str, str]], questions: Sequence[str | None] | None = None
    ) -> np.ndarray:
        """(premise, hypothesis) pairs -> (n, 3) probabilities in ``NLI_LABELS`` order.

        ``questions`` (optional, one per pair) gives the question both texts answer.
        """
        ...


class TokenCounter(Protocol):
    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...


class Embedder(Protocol):
    model_id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Texts -> (n, d) L2-normalised vectors."""
        ...
