"""CRUX density (METHODS section 1): covered answerable questions per token, vs the oracle.

T(X) is a token count the caller supplies (from its configured tokenizer; the paper used the
Llama-3.1 one). d_oracle = |A| / T(O); d(C) = |covered(C)| / T(C); the normalised density is
(d(C) / d_oracle) ** gamma with gamma = 0.5 (diminishing returns). It is not clipped: a
context denser than the oracle scores above 1.

Undefined (NaN / None with a reason), never 0: an empty A (nothing to be dense about), an
undefined coverage (unjudged ratings it hinges on), and an empty context (T(C) = 0: 0 / 0).
Inconsistent counts (negative, or T = 0 for a text that answers something) are errors.
"""

from dataclasses import dataclass

import numpy as np

from evaluation.crux.method.coverage import REASONS, CoverageBatch, Status

DEFAULT_GAMMA = 0.5
EMPTY_CONTEXT = "empty context (0 tokens)"


@dataclass(frozen=True)
class Density:
    """One topic: raw d(C), the oracle's d(O) and the normalised density; None when undefined."""

    raw: float | None
    oracle: float | None
    normalised: float | None
    reason: str | None


@dataclass(frozen=True)
class DensityBatch:
    """Per-topic (T,) arrays, NaN where undefined; ``reasons`` per topic (None when defined)."""

    raw: np.ndarray
    oracle: np.ndarray
    normalised: np.ndarray
    reasons: list[str | None]

    def topic(self, t: int) -> Density:
        def number(x: float) -> float | None:
            return None if np.isnan(x) else float(x)

        return Density(
            number(self.raw[t]), number(self.oracle[t]), number(self.normalised[t]), self.reasons[t]
        )


def _counts(name: str, values: np.ndarray | float, n: int) -> np.ndarray:
    out = np.broadcast_to(np.asarray(values, dtype=np.float64), (n,)).copy()
    if np.isnan(out).any() or (out < 0).any():
        bad = int(np.argwhere(np.isnan(out) | (out < 0))[0, 0])
        raise ValueError(f"{name} of topic {bad} must be a count >= 0, got {out[bad]}")
    return out


def density_values(
    covered: np.ndarray,
    n_answerable: np.ndarray,
    context_tokens: np.ndarray,
    oracle_tokens: np.ndarray,
    gamma: float = DEFAULT_GAMMA,
    undefined_reasons: list[str | None] | None = None,
) -> DensityBatch:
    """Density from counts; ``covered`` may be NaN where the coverage itself is undefined."""
    covered = np.asarray(covered, dtype=np.float64)
    n = covered.shape[0]
    n_answerable = _counts("|A|", n_answerable, n)
    t_context = _counts("context tokens", context_tokens, n)
    t_oracle = _counts("oracle tokens", oracle_tokens, n)
    if gamma <= 0:
        raise ValueError(f"gamma must be > 0, got {gamma}")
    reasons = list(undefined_reasons) if undefined_reasons is not None else [None] * n
    for t in range(n):
        if n_answerable[t] > 0 and t_oracle[t] == 0:
            raise ValueError(
                f"topic {t}: the oracle answers {n_answerable[t]:.0f} questions in 0 tokens"
            )
        if covered[t] > 0 and t_context[t] == 0:
            raise ValueError(
                f"topic {t}: the context covers {covered[t]:.0f} questions in 0 tokens"
            )
        if reasons[t] is None and n_answerable[t] == 0:
            reasons[t] = REASONS[Status.NO_ANSWERABLE]
        if reasons[t] is None and t_context[t] == 0:
            reasons[t] = EMPTY_CONTEXT
        if reasons[t] is None and np.isnan(covered[t]):
            reasons[t] = "coverage undefined"
    defined = np.array([r is None for r in reasons], dtype=bool)
    safe = np.where(defined, 1.0, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        oracle = np.where(n_answerable > 0, n_answerable / np.maximum(t_oracle, 1), np.nan)
        raw = safe * covered / np.maximum(t_context, 1)
        normalised = (raw / oracle) ** gamma
    return DensityBatch(raw=raw, oracle=oracle, normalised=normalised, reasons=reasons)


def density(
    coverage: CoverageBatch,
    context_tokens: np.ndarray,
    oracle_tokens: np.ndarray,
    gamma: float = DEFAULT_GAMMA,
) -> DensityBatch:
    """Density of the contexts whose coverage was computed (undefined where it is)."""
    reasons = [REASONS[Status(int(s))] for s in coverage.status]
    covered = np.where(np.isnan(coverage.value), np.nan, coverage.covered)
    return density_values(
        covered, coverage.answerable, context_tokens, oracle_tokens, gamma, reasons
    )


def topic_density(
    covered: int | None,
    n_answerable: int,
    context_tokens: int,
    oracle_tokens: int,
    gamma: float = DEFAULT_GAMMA,
) -> Density:
    """Density of one context from plain counts; ``covered=None`` means coverage undefined."""
    value = np.nan if covered is None else float(covered)
    return density_values(
        np.array([value]), n_answerable, context_tokens, oracle_tokens, gamma
    ).topic(0)
