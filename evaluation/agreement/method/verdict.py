"""Who was right: a judge's labels against an adjudicated reference, over a reviewed sample.

Pure numpy/scipy. Each reviewed item carries its inclusion probability (the chance that a
disagreement was drawn into the review sample): 1 when every disagreement, or the largest gaps,
were reviewed; n/N for a random sample; n_h/N_h per topic for a stratified one. Estimates over
the disagreements are Horvitz-Thompson weighted (weight 1/inclusion, a Hajek ratio), so a topic
reviewed more densely than another does not count more. The interval is Wilson's score interval
on Kish's effective sample size ``(sum w)^2 / sum w^2``, which equals the plain Wilson interval
when every weight is equal.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm


@dataclass(frozen=True)
class Share:
    estimate: float | None  # None when no item counts
    low: float | None
    high: float | None
    n: int  # items counted
    n_effective: float  # Kish's effective size of the weighted sample

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "n": self.n,
            "n_effective": self.n_effective,
        }


def wilson_interval(p: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a proportion ``p`` observed over ``n`` (possibly an
    effective, non-integer size) trials."""
    if n <= 0:
        raise ValueError("n must be positive")
    z = float(norm.ppf(0.5 + confidence / 2))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def weighted_share(
    hits: Sequence[bool] | np.ndarray,
    inclusion: Sequence[float] | np.ndarray | None = None,
    confidence: float = 0.95,
) -> Share:
    """The weighted share of ``hits`` (weights 1/inclusion) with its Wilson interval."""
    y = np.asarray(hits, dtype=float)
    if y.size == 0:
        return Share(None, None, None, 0, 0.0)
    p_incl = np.ones_like(y) if inclusion is None else np.asarray(inclusion, dtype=float)
    if np.any(p_incl <= 0) or np.any(p_incl > 1):
        raise ValueError("inclusion probabilities must be in (0, 1]")
    w = 1.0 / p_incl
    estimate = float(np.sum(w * y) / np.sum(w))
    n_eff = float(np.sum(w) ** 2 / np.sum(w * w))
    low, high = wilson_interval(estimate, n_eff, confidence)
    return Share(estimate, low, high, int(y.size), n_eff)


def weighted_confusion(
    judged: Sequence[Hashable],
    reference: Sequence[Hashable],
    classes: Sequence[Hashable],
    inclusion: Sequence[float] | np.ndarray | None = None,
) -> np.ndarray:
    """Rows: the judge's label, columns: the reference's, each cell the summed weights
    (1/inclusion) of the items; labels outside ``classes`` are left out."""
    index = {c: i for i, c in enumerate(classes)}
    weights = np.ones(len(judged)) if inclusion is None else 1.0 / np.asarray(inclusion, float)
    matrix = np.zeros((len(classes), len(classes)))
    for a, b, w in zip(judged, reference, weights, strict=True):
        if a in index and b in index:
            matrix[index[a], index[b]] += w
    return matrix
