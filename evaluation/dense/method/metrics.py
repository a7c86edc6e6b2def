"""How well DSE predicts wrong answers (seed 003: Figure 3, Table 1).

- Accuracy per DSE bin: questions grouped by DSE in [low, high) bins.
- AUROC of DSE as the score of "the answer is wrong" (sklearn's roc_auc_score); undefined
  (None) when every answer is right or every answer is wrong.
- AUARC: area under the accuracy-rejection curve (Lin et al. 2024): keep the i questions with
  the lowest DSE, i = 1..n, and average their accuracy over i. Questions with equal DSE are
  kept in random order; the expected accuracy over that order is used, so ties (many
  questions have DSE = 0 under greedy decoding) do not depend on input order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import roc_auc_score

DEFAULT_BIN_EDGES: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, math.inf)


@dataclass(frozen=True)
class DseBin:
    low: float
    high: float
    n: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None

    @property
    def label(self) -> str:
        high = "inf" if math.isinf(self.high) else f"{self.high:g}"
        return f"[{self.low:g}, {high})"

    def as_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "low": self.low,
            "high": None if math.isinf(self.high) else self.high,
            "n": self.n,
            "correct": self.correct,
            "accuracy": self.accuracy,
        }


def _arrays(dse: Sequence[float], correct: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    d = np.asarray(dse, dtype=float)
    c = np.asarray(correct, dtype=bool)
    if d.shape != c.shape or d.ndim != 1:
        raise ValueError(f"{d.size} DSE values for {c.size} correctness labels")
    if np.isnan(d).any():
        raise ValueError("DSE values must not be NaN")
    return d, c


def accuracy_by_bin(
    dse: Sequence[float], correct: Sequence[bool], edges: Sequence[float] = DEFAULT_BIN_EDGES
) -> list[DseBin]:
    """One bin per [edges[i], edges[i+1]); a DSE outside every bin is an error."""
    d, c = _arrays(dse, correct)
    e = list(edges)
    if len(e) < 2 or any(b <= a for a, b in zip(e, e[1:], strict=False)):
        raise ValueError(f"bin edges must increase, got {e}")
    outside = d[(d < e[0]) | (d >= e[-1])]
    if outside.size:
        raise ValueError(f"DSE {outside[0]:g} is outside the bins [{e[0]:g}, {e[-1]:g})")
    bins = []
    for low, high in zip(e, e[1:], strict=False):
        inside = (d >= low) & (d < high)
        bins.append(DseBin(low, high, int(inside.sum()), int(c[inside].sum())))
    return bins


def auroc(dse: Sequence[float], correct: Sequence[bool]) -> float | None:
    """AUROC of DSE for predicting a wrong answer; None when only one class is present."""
    d, c = _arrays(dse, correct)
    wrong = ~c
    if wrong.all() or not wrong.any():
        return None
    return float(roc_auc_score(wrong.astype(int), d))


def auarc(dse: Sequence[float], correct: Sequence[bool]) -> float | None:
    """Area under the accuracy-rejection curve (expected over ties); None without questions."""
    d, c = _arrays(dse, correct)
    n = d.size
    if n == 0:
        return None
    values, group = np.unique(d, return_inverse=True)
    sizes = np.bincount(group, minlength=len(values))
    right = np.bincount(group, weights=c.astype(float), minlength=len(values))
    total = 0.0
    kept_before, right_before = 0, 0.0
    for size, hits in zip(sizes, right, strict=True):
        rate = hits / size
        for taken in range(1, int(size) + 1):
            total += (right_before + taken * rate) / (kept_before + taken)
        kept_before += int(size)
        right_before += hits
    return total / n
