"""The nugget judge's model calls, batched, through ``evaluation/backends`` only.

Greedy mode generates a short reply and parses its digit (an unparsable reply is kept raw with
no label, never coerced); distribution mode reads the log-probabilities of the scheme's digits
after the prompt (the backends that expose them: the local model and OpenAI-compatible servers
with top log-probs) and takes the most likely digit, keeping the distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.backends.base import GenerationParams, Generator
from evaluation.backends.checked_generation import first_samples
from evaluation.backends.token_usage import JUDGE, acting_as
from evaluation.nuggets.method.prompts import (
    IMPORTANCE_DIGITS,
    creation_prompt,
    importance_prompt,
    parse_digit,
    parse_nugget_list,
)

DIGIT_TOKENS = 4
LIST_TOKENS = 1024


@dataclass(frozen=True)
class Label:
    prompt: str
    raw_output: str
    label: object | None  # None: the reply held no digit of the scheme
    distribution: dict[str, float] | None = None  # label -> probability (distribution mode)


def _softmax(rows: np.ndarray) -> np.ndarray:
    values = np.asarray(rows, dtype=float)
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def label_prompts(
    generator: Generator,
    prompts: Sequence[str],
    digits: dict[str, object],
    distribution: bool = False,
) -> list[Label]:
    """One label per prompt, from the scheme's ``digits`` (digit -> label)."""
    if not prompts:
        return []
    if distribution:
        candidates = list(digits)
        with acting_as(JUDGE):
            scores = generator.continuation_logprobs(list(prompts), candidates)
        probabilities = _softmax(scores)
        labels = []
        for prompt, row in zip(prompts, probabilities, strict=True):
            best = candidates[int(np.argmax(row))]
            shares = {
                str(digits[d]): round(float(p), 6) for d, p in zip(candidates, row, strict=True)
            }
            raw = " ".join(f"P({digits[d]})={p:.3f}" for d, p in zip(candidates, row, strict=True))
            labels.append(Label(prompt, raw, digits[best], shares))
        return labels
    params = GenerationParams(max_new_tokens=DIGIT_TOKENS, temperature=0.0, num_samples=1)
    outputs = first_samples(generator, list(prompts), params, role=JUDGE)
    return [
        Label(prompt, output.text, parse_digit(output.text, digits))
        for prompt, output in zip(prompts, outputs, strict=True)
    ]


def create_nuggets(
    generator: Generator, query: str, passages: Sequence[str], window: int
) -> list[str]:
    """AutoNuggetizer's iterative creation: the list is rewritten once per window of passages
    (a reply without a list keeps the list as it was)."""
    nuggets: list[str] = []
    params = GenerationParams(max_new_tokens=LIST_TOKENS, temperature=0.0, num_samples=1)
    for start in range(0, len(passages), window):
        prompt = creation_prompt(query, nuggets, passages[start : start + window])
        reply = first_samples(generator, [prompt], params, role=JUDGE)[0].text
        nuggets = parse_nugget_list(reply) or nuggets
    return nuggets


def label_importance(
    generator: Generator, query: str, nuggets: Sequence[str], distribution: bool = False
) -> list[str]:
    """Vital or okay per nugget; an unparsable reply makes it okay (a nugget is vital only
    when the judge says so)."""
    prompts = [importance_prompt(query, text) for text in nuggets]
    labels = label_prompts(generator, prompts, IMPORTANCE_DIGITS, distribution)
    return [str(label.label or "okay") for label in labels]
