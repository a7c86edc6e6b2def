"""LLM judging of (question, context) items: prompts and ratings.

Plain Python (no Django): the judging job (``evaluation.crux.job``) hands in items, each a
sub-question with a context text (a passage, or a whole generated report), or a topic's query
with a passage (the UMBRELA rubric), and a generator implementing ``backends.base.Generator``;
it gets back each item's prompt, raw output and the rating the rubric's parser reads (0-5 for
CRUX, 0-3 for UMBRELA). An output with no rating in it keeps ``rating=None``: it is counted as
unparsable, never read as 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from evaluation.backends.base import GenerationParams, Generator
from evaluation.backends.checked_generation import first_samples
from evaluation.backends.token_usage import JUDGE, acting_as
from evaluation.crux.method.judge_prompts import JUDGE_MAX_NEW_TOKENS, Prompt, RubricPrompt
from evaluation.crux.method.rating_distribution import (
    CANDIDATES,
    distributions,
    expected_rating,
    most_likely,
)


@dataclass(frozen=True)
class JudgeItem:
    key: Hashable  # the caller's id for the item, handed back untouched
    question: str
    context: str


@dataclass(frozen=True)
class RatedItem:
    item: JudgeItem
    prompt: str
    raw_output: str
    rating: int | None  # None: no rating of the rubric could be read from raw_output
    distribution: tuple[float, ...] | None = None  # P(rating 0..5), distribution mode only

    @property
    def is_parsed(self) -> bool:
        return self.rating is not None


def has_context(text: str) -> bool:
    """Whether a text can serve as a judge's context (passages without text cannot)."""
    return bool(text.strip())


def judge_params(temperature: float = 0.0, seed: int | None = None) -> GenerationParams:
    """The judge's decoding: at most ``JUDGE_MAX_NEW_TOKENS`` tokens, one sample; greedy, or
    (a sampled repeat) plain temperature sampling with a seed."""
    return GenerationParams(
        max_new_tokens=JUDGE_MAX_NEW_TOKENS,
        temperature=temperature,
        num_samples=1,
        seed=seed if temperature > 0 else None,
    )


def build_judge_prompts(items: Sequence[JudgeItem], prompt: Prompt) -> list[str]:
    """The rubric prompt of each item, in item order."""
    for item in items:
        if not has_context(item.context):
            raise ValueError(f"item {item.key!r} has no context text to judge")
    return [prompt.render(item.question, item.context) for item in items]


def rate_items(
    items: Sequence[JudgeItem],
    generator: Generator,
    prompt: Prompt,
    params: GenerationParams | None = None,
) -> list[RatedItem]:
    """Rate every item in one batched generator call; results come back in item order."""
    if not items:
        return []
    prompts = build_judge_prompts(items, prompt)
    outputs = first_samples(generator, prompts, params or judge_params(), role=JUDGE)
    rated = []
    for item, text, output in zip(items, prompts, outputs, strict=True):
        raw = output.text
        rated.append(RatedItem(item=item, prompt=text, raw_output=raw, rating=prompt.parse(raw)))
    return rated


def rate_items_distribution(
    items: Sequence[JudgeItem], generator: Generator, prompt: RubricPrompt
) -> list[RatedItem]:
    """Distribution mode: P(rating 0..5) of every item from the six rating tokens'
    log-probabilities after its prompt (no generation); the rating is the most likely one."""
    if not items:
        return []
    prompts = build_judge_prompts(items, prompt)
    with acting_as(JUDGE):
        probabilities = distributions(generator.continuation_logprobs(prompts, CANDIDATES))
    ratings = most_likely(probabilities)
    expected = expected_rating(probabilities)
    rated = []
    for item, text, p, r, e in zip(items, prompts, probabilities, ratings, expected, strict=True):
        raw = "P(0..5) = " + " ".join(f"{x:.3f}" for x in p) + f"; E = {e:.2f}"
        rated.append(
            RatedItem(item, text, raw, int(r), distribution=tuple(round(float(x), 6) for x in p))
        )
    return rated
