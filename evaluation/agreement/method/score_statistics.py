"""Statistics of per-item scores with bootstrap intervals; no Django: the mean of scores (gold
accuracy), a proportion of successes (agreement with the majority), and rank correlations of
two continuous vectors (report coverage by humans vs by a judge). Point estimates are numpy's
mean and scipy's Spearman and Kendall tau-b; intervals resample items (``bootstrap``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import kendalltau, rankdata, spearmanr

from evaluation.agreement.method import sufficient_statistics as ts
from evaluation.agreement.method.bootstrap import Bootstrap, compress_codes
from evaluation.agreement.method.estimate import TOO_FEW, Stat, undefined, with_interval

# Largest (distinct x) * (distinct y) grid that continuous correlations resample as a table.
MAX_GRID = 40_000
# Kendall's tau of resampled (x, y) pairs: from the P distinct pairs (a P x P product) while
# P^2 is at most this many times the table's cells, else from the table's cumulative sums.
PATTERN_SHARE = 16


def mean_of(values: Sequence[float], statistic: str, boot: Bootstrap | None = None) -> Stat:
    """Mean of per-item scores (e.g. gold-item scores in [0, 1]), resampling the items."""
    boot = boot or Bootstrap()
    x = np.asarray(values, float)
    if x.size == 0:
        return undefined(statistic, 0, "no item to count")
    distinct, codes = np.unique(x, return_inverse=True)
    patterns = compress_codes(codes, len(distinct))
    replicates = boot.draws(patterns) @ distinct[patterns.onehot] / x.size
    return with_interval(statistic, float(x.mean()), replicates, int(x.size), boot)


def proportion(successes: Sequence[bool], statistic: str, boot: Bootstrap | None = None) -> Stat:
    """Share of items that are a success (e.g. a label equal to the others' majority)."""
    boot = boot or Bootstrap()
    x = np.asarray(successes, bool)
    if x.size == 0:
        return undefined(statistic, 0, "no item to count")
    patterns = compress_codes(x.astype(np.int64), 2)
    replicates = boot.draws(patterns) @ patterns.rows[:, 1] / x.size
    return with_interval(statistic, float(x.mean()), replicates, int(x.size), boot)


def correlations(
    x: Sequence[float],
    y: Sequence[float],
    names: tuple[str, str] = ("x", "y"),
    boot: Bootstrap | None = None,
) -> list[Stat]:
    """Spearman and Kendall tau-b of two continuous vectors (pairs with a NaN left out)."""
    boot = boot or Bootstrap()
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = ~np.isnan(x) & ~np.isnan(y)
    x, y = x[keep], y[keep]
    n = int(x.size)
    statistics = ("spearman", "kendall_tau_b")
    if n < 2:
        return [undefined(s, n, TOO_FEW) for s in statistics]
    for name, v in zip(names, (x, y), strict=True):
        if np.all(v == v[0]):
            reason = f"{name} is the same ({v[0]:g}) for every item"
            return [undefined(s, n, reason) for s in statistics]
    ux, ix = np.unique(x, return_inverse=True)
    uy, iy = np.unique(y, return_inverse=True)
    if len(ux) * len(uy) <= MAX_GRID:
        # Few distinct values (coverage is a fraction with a small denominator): resample the
        # (x, y) table, as for labels.
        nx, ny = len(ux), len(uy)
        patterns = compress_codes(ix * ny + iy, nx * ny)
        draws = boot.draws(patterns)
        px, py = np.divmod(patterns.onehot, ny)
        rho = ts.spearman_patterns(draws, px, py, nx, ny)
        if len(px) ** 2 <= PATTERN_SHARE * nx * ny:
            taus = ts.kendall_b_patterns(draws, px, py, nx, ny)
        else:
            tables = np.zeros((len(draws), nx * ny))
            tables[:, patterns.onehot] = draws
            taus = ts.kendall_b(tables.reshape(-1, nx, ny))
    else:
        idx = boot.indices(n)
        xs, ys = x[idx], y[idx]
        rho = ts.pearson_rows(rankdata(xs, axis=1), rankdata(ys, axis=1))
        varies = (xs != xs[:, :1]).any(axis=1) & (ys != ys[:, :1]).any(axis=1)
        taus = np.array(
            [
                kendalltau(a, b).statistic if ok else np.nan
                for a, b, ok in zip(xs, ys, varies, strict=True)
            ]
        )
    return [
        with_interval("spearman", spearmanr(x, y).statistic, rho, n, boot),
        with_interval("kendall_tau_b", kendalltau(x, y).statistic, taus, n, boot),
    ]
