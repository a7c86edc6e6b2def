"""A judge's distribution over CRUX's 0-5 ratings, from the log-probabilities of the six rating
tokens at the answer position (distribution mode), and the figures read from it.

The rating stored with such a judgment is the most likely one (ties: the lower rating); the
expected rating and the normalised entropy (0: all mass on one rating, 1: uniform) say how sure
the judge was.
"""

from __future__ import annotations

import numpy as np

RATINGS = tuple(range(6))
CANDIDATES = tuple(str(r) for r in RATINGS)  # the continuations scored after the prompt
VERSION_SUFFIX = "+dist"  # distribution mode is a judge identity of its own


def distributions(logprobs: np.ndarray) -> np.ndarray:
    """(n, 6) log-probabilities of the rating tokens -> (n, 6) probabilities summing to 1
    (renormalised over the six: mass on other tokens is not a rating)."""
    values = np.asarray(logprobs, dtype=float)
    if values.ndim != 2 or values.shape[1] != len(RATINGS):
        raise ValueError(f"expected (n, {len(RATINGS)}) log-probabilities, got {values.shape}")
    if not np.isfinite(values).any(axis=1).all():
        raise ValueError("a row gives every rating zero probability")
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def most_likely(probabilities: np.ndarray) -> np.ndarray:
    """The rating with the most mass per row (the first, i.e. lower, on a tie)."""
    return np.argmax(np.asarray(probabilities, dtype=float), axis=1)


def expected_rating(probabilities: np.ndarray) -> np.ndarray:
    return np.asarray(probabilities, dtype=float) @ np.arange(len(RATINGS), dtype=float)


def normalised_entropy(probabilities: np.ndarray) -> np.ndarray:
    """Shannon entropy / log(6): 0 when one rating has all the mass, 1 when all are equal."""
    p = np.asarray(probabilities, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p), 0.0)
    return -terms.sum(axis=1) / np.log(len(RATINGS))


def stored_distribution(value: object) -> np.ndarray | None:
    """A judgment's stored distribution as six probabilities summing to 1, or None when the
    value is not one (missing, another length, a negative or non-finite entry, no mass)."""
    if not isinstance(value, list | tuple) or len(value) != len(RATINGS):
        return None
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in value):
        return None
    p = np.asarray(value, dtype=float)
    if not np.isfinite(p).all() or (p < 0).any() or p.sum() <= 0:
        return None
    return p / p.sum()
