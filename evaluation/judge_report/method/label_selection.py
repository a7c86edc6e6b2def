"""Which topics or items people should label next, chosen from candidates (seeded, pure).

Strategies, and what they do to prediction-powered inference (PPI: the judge report's
estimates, which treat the human-labelled topics as a sample of all topics):

- ``random``: n candidates uniformly at random, each with inclusion probability n / N. PPI
  stays unbiased.
- ``stratified``: candidates split into strata (e.g. by the judge's score); each stratum gets
  n_h of the n labels in proportion to its size N_h (largest remainders, so the n_h sum to n),
  drawn uniformly inside it: inclusion probability n_h / N_h, returned per candidate. With
  proportional allocation these are all close to n / N, so unweighted PPI stays unbiased up to
  the rounding of n_h; exact unbiasedness weights each labelled topic by 1 / its probability.
- ``uncertain``: the n candidates on which the judges are least certain (the highest
  uncertainty; ties broken at random). Inclusion is deterministic and depends on the judge's
  own labels, so the labelled topics are not a random sample: PPI (and the human-only mean) on
  them is biased unless weighted by known inclusion probabilities, which this rule has not.

Uncertainty measures of one item (higher = less certain):

- ``entropy``: Shannon entropy (nats) of a judge's rating distribution (distribution mode);
- ``disagreement``: |rating of judge A - rating of judge B|;
- ``near_tau``: minus the distance of the rating to the answerability threshold, the middle
  between tau - 1 and tau (a rating of tau - 1 or tau is the closest call).
"""

from __future__ import annotations

import numpy as np

STRATEGIES = ("random", "stratified", "uncertain")
MEASURES = ("entropy", "disagreement", "near_tau")
KEEPS_PPI_UNBIASED = {"random": True, "stratified": True, "uncertain": False}


def _check_n(n: int, size: int) -> int:
    if not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    return min(int(n), size)


def uniform(size: int, n: int, seed: int) -> np.ndarray:
    """Sorted indices of n of ``size`` candidates drawn uniformly without replacement."""
    n = _check_n(n, size)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(size, size=n, replace=False))


def allocation(sizes: np.ndarray, n: int) -> np.ndarray:
    """Proportional allocation of n over strata of ``sizes`` by largest remainders (ties: the
    larger stratum, then the first); never more than a stratum holds."""
    sizes = np.asarray(sizes, dtype=np.int64)
    n = min(int(n), int(sizes.sum()))
    exact = n * sizes / sizes.sum()
    counts = np.floor(exact).astype(np.int64)
    remainder = exact - counts
    order = np.lexsort((np.arange(len(sizes)), -sizes, -remainder))
    for i in order[: n - int(counts.sum())]:
        counts[i] += 1
    return np.minimum(counts, sizes)


def stratified(strata: np.ndarray, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted chosen indices, per-candidate inclusion probability n_h / N_h)."""
    strata = np.asarray(strata)
    n = _check_n(n, len(strata))
    rng = np.random.default_rng(seed)
    labels, inverse = np.unique(strata, return_inverse=True)
    inverse = inverse.reshape(-1)
    sizes = np.bincount(inverse, minlength=len(labels))
    counts = allocation(sizes, n)
    chosen = [
        rng.choice(np.flatnonzero(inverse == h), size=int(c), replace=False)
        for h, c in enumerate(counts)
        if c
    ]
    probability = (counts / sizes)[inverse]
    return np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, np.int64), probability


def least_certain(uncertainty: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Sorted indices of the n most uncertain candidates (NaN: no measure, chosen last; ties
    broken by a seeded random order)."""
    values = np.asarray(uncertainty, dtype=np.float64)
    n = _check_n(n, len(values))
    tiebreak = np.random.default_rng(seed).random(len(values))
    key = np.where(np.isfinite(values), values, -np.inf)
    order = np.lexsort((tiebreak, -key))
    return np.sort(order[:n])


def quantile_strata(scores: np.ndarray, n_strata: int) -> np.ndarray:
    """Stratum 0..n_strata-1 of each score by its quantile; NaN scores form stratum -1."""
    values = np.asarray(scores, dtype=np.float64)
    out = np.full(len(values), -1, np.int64)
    finite = np.isfinite(values)
    if finite.any():
        ranks = values[finite].argsort(kind="stable").argsort(kind="stable")
        out[finite] = ranks * n_strata // int(finite.sum())
    return out


def rating_entropy(distributions: np.ndarray) -> np.ndarray:
    """Entropy (nats) of each row's rating distribution (rows normalised; NaN rows stay NaN)."""
    p = np.asarray(distributions, dtype=np.float64)
    totals = p.sum(axis=1, keepdims=True)
    p = np.divide(p, totals, out=np.full_like(p, np.nan), where=totals > 0)
    terms = np.where(p > 0, -p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return np.where(np.isfinite(p).all(axis=1), terms.sum(axis=1), np.nan)


def disagreement(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| (NaN where either judge has no rating)."""
    return np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))


def near_tau(ratings: np.ndarray, tau: float) -> np.ndarray:
    """Minus the distance of each rating to tau - 0.5 (NaN where there is no rating)."""
    return -np.abs(np.asarray(ratings, dtype=np.float64) - (tau - 0.5))
