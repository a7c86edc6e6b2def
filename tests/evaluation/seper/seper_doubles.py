"""Deterministic stand-ins and counting wrappers for the SePer and answer-equivalence tests.

``WordNLI`` and ``ScriptedGenerator`` are hand-written models with rules simple enough to
compute expected SePer values by hand; ``CountingGenerator`` / ``CountingNLI`` wrap any model
(the real embedded ones included) and count the calls that reach it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaluation.backends.base import Generation, GenerationParams
from evaluation.shared.lexical_match import normalize_answer

ENTAILS = (0.9, 0.05, 0.05)
NEUTRAL = (0.2, 0.7, 0.1)
CONTRADICTS = (0.1, 0.2, 0.7)


def word_nli_row(premise: str, hypothesis: str) -> tuple[float, float, float]:
    """Entailment when the hypothesis's words are all in the premise; contradiction when the
    two share no word; neutral otherwise (a blank text shares nothing)."""
    p, h = set(normalize_answer(premise).split()), set(normalize_answer(hypothesis).split())
    if h and h <= p:
        return ENTAILS
    if not p & h:
        return CONTRADICTS
    return NEUTRAL


class WordNLI:
    """``NLIModel`` on ``word_nli_row``; records each call's pairs and questions."""

    model_id = "test/word-nli"

    def __init__(self) -> None:
        self.calls: list[tuple[list[tuple[str, str]], list[str | None] | None]] = []

    def predict(self, pairs, questions=None) -> np.ndarray:
        self.calls.append((list(pairs), None if questions is None else list(questions)))
        return np.array([word_nli_row(p, h) for p, h in pairs], dtype=np.float64).reshape(-1, 3)


class ScriptedGenerator:
    """Answers each prompt with the scripted responses of the first script key it contains
    (list context keys before their question's key).

    A scripted response is (text, token log-probs); tokens are the log-probs' count of
    placeholder strings. Every generate call is recorded.
    """

    model_id = "test/scripted"

    def __init__(self, script: dict[str, list[tuple[str, list[float]]]]) -> None:
        self.script = script
        self.calls: list[tuple[list[str], GenerationParams]] = []

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[list[Generation]]:
        self.calls.append((list(prompts), params))
        return [self._answers(prompt, params.num_samples) for prompt in prompts]

    def _answers(self, prompt: str, n: int) -> list[Generation]:
        key = next(k for k in self.script if k in prompt)
        rows = self.script[key]
        return [
            Generation(
                text=text,
                tokens=[f"t{i}" for i in range(len(logprobs))],
                token_ids=list(range(len(logprobs))),
                token_logprobs=list(logprobs),
                finish_reason="stop",
            )
            for text, logprobs in (rows[i % len(rows)] for i in range(n))
        ]


class CountingGenerator:
    """Thin wrapper: forwards to ``inner`` and counts generate calls and prompts."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.generate_calls = 0
        self.prompts: list[str] = []

    def generate(self, prompts, params):
        self.generate_calls += 1
        self.prompts.extend(prompts)
        return self.inner.generate(prompts, params)


class CountingNLI:
    """Thin wrapper: forwards to ``inner`` and counts predict calls and pairs."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.predict_calls = 0
        self.pairs = 0

    def predict(self, pairs, questions=None):
        self.predict_calls += 1
        self.pairs += len(pairs)
        return self.inner.predict(pairs, questions=questions)
