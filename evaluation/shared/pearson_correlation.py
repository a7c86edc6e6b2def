"""Pearson correlation with its p-value, defined only where it means something.

SePer's paper (Table 2) reports the Pearson correlation of Delta-SePer with utility labels; the
app also correlates it with CRUX coverage and Recall@k. Pairs with a missing value on either
side are dropped; fewer than 3 pairs or a constant side gives an undefined result with the
reason instead of scipy's NaN and warning. Pure scipy, no Django.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import pearsonr

MIN_PAIRS = 3


@dataclass(frozen=True)
class Correlation:
    r: float | None
    p_value: float | None
    n: int  # pairs with both values present
    undefined: str | None = None  # why r is None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _values(values: Sequence[float | None]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def pearson(x: Sequence[float | None], y: Sequence[float | None]) -> Correlation:
    """Pearson r and its two-sided p-value over the pairs where both values are present."""
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}")
    a, b = _values(x), _values(y)
    present = np.isfinite(a) & np.isfinite(b)
    a, b = a[present], b[present]
    n = int(a.size)
    if n < MIN_PAIRS:
        return Correlation(None, None, n, f"fewer than {MIN_PAIRS} pairs with both values (n={n})")
    for name, side in (("x", a), ("y", b)):
        if np.ptp(side) == 0:
            return Correlation(None, None, n, f"{name} is constant ({side[0]:g} for every pair)")
    result = pearsonr(a, b)
    r, p = float(result.statistic), float(result.pvalue)
    if math.isnan(r):
        return Correlation(None, None, n, "scipy returned NaN")
    return Correlation(r, p, n)
