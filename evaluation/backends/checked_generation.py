"""``Generator.generate`` with its contract checked, for every caller that batches prompts.

A backend must return one result list per prompt, each with ``params.num_samples``
generations; anything else is a backend fault that would silently misalign prompts and
answers, so it stops the batch with the model and the counts named.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.backends import token_usage
from evaluation.backends.base import Generation, GenerationParams, Generator


def generate_checked(
    generator: Generator,
    prompts: Sequence[str],
    params: GenerationParams,
    role: str = "generator",
) -> list[list[Generation]]:
    """One batched call; ``role`` (``token_usage.ROLES``: "generator", "judge") is what its
    usage is recorded under and how errors name the model."""
    with token_usage.acting_as(role):
        results = generator.generate(list(prompts), params)
    if len(results) != len(prompts):
        raise ValueError(
            f"{role} {generator.model_id!r} returned {len(results)} results "
            f"for {len(prompts)} prompts"
        )
    for index, generations in enumerate(results):
        if len(generations) != params.num_samples:
            raise ValueError(
                f"{role} {generator.model_id!r} returned {len(generations)} samples for prompt "
                f"{index}, expected {params.num_samples}"
            )
    return results


def first_samples(
    generator: Generator,
    prompts: Sequence[str],
    params: GenerationParams,
    role: str = "generator",
) -> list[Generation]:
    """Each prompt's single generation, in prompt order (``params.num_samples`` must be 1)."""
    return [g[0] for g in generate_checked(generator, prompts, params, role)]
