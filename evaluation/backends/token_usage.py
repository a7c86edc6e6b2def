"""The model calls and tokens this process's backends spent since they were last taken, per role.

One generator often serves several roles in a job (CRUX's judge and the answer generator, the
LLM NLI prompt on SePer's sampler), so the role is not the model's: the caller names it around
its calls (``acting_as``), the backends record what each call cost under the role in force, and
the job runner takes the figures after every batch and adds them to the job (registered from
``BackendsConfig.ready``). A model with one use (an embedder, an NLI model) names its own role.
One ledger per process: a Celery prefork child runs one job at a time; the lock covers a
backend's own request threads, which run in a copy of the caller's context (its role).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from crux_app.jobs.usage import ModelUsage

# The roles a model plays for a method, as the model settings name them (GENERATOR_MODEL,
# JUDGE_MODEL, NLI_MODEL, EMBED_MODEL).
GENERATOR = "generator"  # writes answers, samples, rephrasings; scores its own text
JUDGE = "judge"  # rates or labels what others wrote
NLI = "nli"  # says whether one text entails another
EMBEDDER = "embedder"  # turns texts into vectors
ROLES: tuple[str, ...] = (GENERATOR, JUDGE, NLI, EMBEDDER)
# A call made where no role is named (a capability probe while a job is planned, a warm-up).
OTHER = "other"

_role: ContextVar[str] = ContextVar("model_role", default=OTHER)
_lock = threading.Lock()
_spent: dict[str, ModelUsage] = {}


@contextmanager
def acting_as(role: str) -> Iterator[None]:
    """Record the model calls made inside the block under ``role`` (one of ``ROLES``)."""
    if role not in ROLES:
        raise ValueError(f"unknown model role {role!r}; one of {', '.join(ROLES)}")
    token = _role.set(role)
    try:
        yield
    finally:
        _role.reset(token)


def current_role() -> str:
    return _role.get()


def record(
    *,
    calls: int = 1,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    forward_tokens: int = 0,
    role: str | None = None,
) -> None:
    """Add one call's (or one batch's) cost, under ``role`` or else the role in force."""
    usage = ModelUsage(
        *(max(0, int(n)) for n in (calls, prompt_tokens, completion_tokens, forward_tokens))
    )
    key = role or _role.get()
    with _lock:
        _spent[key] = _spent.get(key, ModelUsage()) + usage


def take() -> dict[str, ModelUsage]:
    """The usage per role recorded since the last call, and reset it."""
    with _lock:
        spent = {role: usage for role, usage in _spent.items() if usage}
        _spent.clear()
    return spent
