"""What a job's model calls cost, per model role: the figures the backends count and the job
stores (``JobModelUsage``). Plain Python: the model backends build these without Django."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class ModelUsage:
    """Calls and tokens of one role's model calls.

    ``calls``: a local model's forward passes, a served model's requests. ``forward_tokens``:
    the token positions those passes ran (padding and every decoding step included), a served
    model's prompt + completion tokens. ``prompt_tokens``/``completion_tokens``: a generator's
    tokens in and out (an embedder or an NLI classifier has neither).
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    forward_tokens: int = 0

    def __add__(self, other: ModelUsage) -> ModelUsage:
        return ModelUsage(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


# The stored figures, in ``ModelUsage``'s order: the columns of ``JobModelUsage``.
FIGURES: tuple[str, ...] = tuple(f.name for f in fields(ModelUsage))

UsageByRole = Mapping[str, ModelUsage]


def merged(parts: Iterable[UsageByRole]) -> dict[str, ModelUsage]:
    """The roles' usage summed over ``parts``; roles that spent nothing are left out."""
    total: dict[str, ModelUsage] = {}
    for part in parts:
        for role, usage in part.items():
            total[role] = total.get(role, ModelUsage()) + usage
    return {role: usage for role, usage in total.items() if usage}


def prompt_and_completion(usage: UsageByRole) -> tuple[int, int]:
    """The (prompt, completion) tokens of every role together: the job's own totals."""
    return (
        sum(u.prompt_tokens for u in usage.values()),
        sum(u.completion_tokens for u in usage.values()),
    )
