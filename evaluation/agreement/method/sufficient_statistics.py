"""Agreement statistics as vectorised functions of batched sufficient statistics.

The bootstrap resamples items, and every statistic here depends on the items only through a
sum of per-item contributions: a contingency table for two raters, category counts for Fleiss'
kappa, a coincidence matrix for Krippendorff's alpha. So one resample is one weighted sum, and
B resamples are one matrix product; these functions then evaluate the statistic on all B sums
at once. Each one is the textbook formula that scikit-learn, scipy, statsmodels and the
krippendorff package compute (the point estimates come from those libraries; tests check that
these formulas give the same numbers). NaN marks a resample where the statistic is undefined.
"""

from __future__ import annotations

import numpy as np

WEIGHTS = (None, "linear", "quadratic")


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is 0 (an undefined statistic, never 0)."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def weight_matrix(k: int, weights: str | None) -> np.ndarray:
    """Disagreement weights between category indices, as scikit-learn's ``cohen_kappa_score``."""
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {WEIGHTS}, got {weights!r}")
    i, j = np.indices((k, k))
    if weights is None:
        return (i != j).astype(float)
    if weights == "linear":
        return np.abs(i - j).astype(float)
    return ((i - j) ** 2).astype(float)


def kappa(tables: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's kappa of (B, K, K) contingency tables (rows rater a, columns rater b)."""
    w = weight_matrix(tables.shape[-1], weights)
    n = tables.sum(axis=(1, 2))
    expected = tables.sum(axis=2)[:, :, None] * tables.sum(axis=1)[:, None, :]
    expected = _divide(expected, n[:, None, None])
    return 1 - _divide((w * tables).sum(axis=(1, 2)), (w * expected).sum(axis=(1, 2)))


def accuracy(tables: np.ndarray) -> np.ndarray:
    """Share of pairs on the diagonal (exact agreement)."""
    return _divide(np.trace(tables, axis1=1, axis2=2), tables.sum(axis=(1, 2)))


def class_scores(tables: np.ndarray, index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall, F1 of one class; rows are the truth, columns the prediction.

    F1 is undefined where precision or recall is, and 0 where both are 0 (scikit-learn's rule).
    """
    hit = tables[:, index, index]
    precision = _divide(hit, tables[:, :, index].sum(axis=1))
    recall = _divide(hit, tables[:, index, :].sum(axis=1))
    both = precision + recall
    f1 = _divide(2 * precision * recall, both)
    f1[both == 0] = 0.0
    return precision, recall, f1


def _midranks(margins: np.ndarray) -> np.ndarray:
    """Average rank of each category given (B, K) category counts (ranks start at 1)."""
    before = np.cumsum(margins, axis=1) - margins
    return before + (margins + 1) / 2


def spearman(tables: np.ndarray) -> np.ndarray:
    """Spearman's rho of (B, K, L) tables of two ordered variables (tied ranks averaged)."""
    rows, cols = tables.sum(axis=2), tables.sum(axis=1)
    n = rows.sum(axis=1)
    centre = ((n + 1) / 2)[:, None]
    rx, ry = _midranks(rows) - centre, _midranks(cols) - centre
    cov = np.einsum("bkl,bk,bl->b", tables, rx, ry)
    var_x = (rows * rx**2).sum(axis=1)
    var_y = (cols * ry**2).sum(axis=1)
    return _divide(cov, np.sqrt(var_x * var_y))


def kendall_b(tables: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of (B, K, L) tables of two ordered variables."""
    # above[b, k, l] = number of pairs with x > k and y > l; below: x > k and y < l.
    rev = tables[:, ::-1, ::-1]
    above = np.cumsum(np.cumsum(rev, axis=1), axis=2)[:, ::-1, ::-1]
    above = np.pad(above, ((0, 0), (0, 1), (0, 1)))[:, 1:, 1:]
    flip = tables[:, ::-1, :]
    below = np.cumsum(np.cumsum(flip, axis=1), axis=2)[:, ::-1, :]
    below = np.pad(below, ((0, 0), (0, 1), (1, 0)))[:, 1:, :-1]
    concordant = (tables * above).sum(axis=(1, 2))
    discordant = (tables * below).sum(axis=(1, 2))
    rows, cols = tables.sum(axis=2), tables.sum(axis=1)
    n = rows.sum(axis=1)
    n0 = n * (n - 1) / 2
    tx = (rows * (rows - 1) / 2).sum(axis=1)
    ty = (cols * (cols - 1) / 2).sum(axis=1)
    return _divide(concordant - discordant, np.sqrt((n0 - tx) * (n0 - ty)))


def _margins(draws: np.ndarray, index: np.ndarray, size: int) -> np.ndarray:
    """(B, size) counts of each value in B resamples of (B, P) pattern counts."""
    onehot = np.zeros((len(index), size))
    onehot[np.arange(len(index)), index] = 1
    return draws @ onehot


def spearman_patterns(draws: np.ndarray, ix: np.ndarray, iy: np.ndarray, nx: int, ny: int):
    """Spearman's rho of B resamples of P distinct (x, y) pairs: ``draws`` (B, P) counts how
    often each pair is taken, ``ix`` / ``iy`` (P,) are the ranks of its x and y among the
    ``nx`` / ``ny`` distinct values. The same figure as ``spearman`` on the (B, nx, ny)
    tables, in O(B (P + nx + ny)) instead of O(B nx ny)."""
    rows, cols = _margins(draws, ix, nx), _margins(draws, iy, ny)
    n = rows.sum(axis=1)
    centre = ((n + 1) / 2)[:, None]
    rx, ry = _midranks(rows) - centre, _midranks(cols) - centre
    cov = (draws * rx[:, ix] * ry[:, iy]).sum(axis=1)
    var_x = (rows * rx**2).sum(axis=1)
    var_y = (cols * ry**2).sum(axis=1)
    return _divide(cov, np.sqrt(var_x * var_y))


def kendall_b_patterns(draws: np.ndarray, ix: np.ndarray, iy: np.ndarray, nx: int, ny: int):
    """Kendall's tau-b of B resamples of P distinct (x, y) pairs (arguments as in
    ``spearman_patterns``): concordant minus discordant pairs is w S w / 2 with S[i, j] the
    sign agreement of patterns i and j, one (B, P) x (P, P) product; cheaper than the
    cumulative sums of ``kendall_b`` when P^2 is below the table's size."""
    sign = np.sign(ix[:, None] - ix[None, :]) * np.sign(iy[:, None] - iy[None, :])
    net = ((draws @ sign.astype(float)) * draws).sum(axis=1) / 2
    rows, cols = _margins(draws, ix, nx), _margins(draws, iy, ny)
    n = rows.sum(axis=1)
    n0 = n * (n - 1) / 2
    tx = (rows * (rows - 1) / 2).sum(axis=1)
    ty = (cols * (cols - 1) / 2).sum(axis=1)
    return _divide(net, np.sqrt((n0 - tx) * (n0 - ty)))


def fleiss(category_totals: np.ndarray, square_sums: np.ndarray, items: np.ndarray, m: int):
    """Fleiss' kappa from sums over items of category counts (B, V), of squared counts (B,)
    and of items (B,), every item rated by ``m`` raters (statsmodels' ``fleiss_kappa``)."""
    total = items * m
    p_cat = _divide(category_totals, total[:, None])
    p_mean = _divide(square_sums - total, total * (m - 1))
    p_exp = (p_cat**2).sum(axis=1)
    return _divide(p_mean - p_exp, 1 - p_exp)


def unit_coincidences(value_counts: np.ndarray) -> np.ndarray:
    """(U, V, V) coincidences of units given their (U, V) value counts (Krippendorff)."""
    counts = value_counts.astype(float)
    pairable = np.maximum(counts.sum(axis=1), 2)
    outer = counts[:, :, None] * counts[:, None, :]
    outer[:, np.arange(counts.shape[1]), np.arange(counts.shape[1])] -= counts
    return outer / (pairable - 1)[:, None, None]


def krippendorff_distances(values: np.ndarray, n_v: np.ndarray, level: str) -> np.ndarray:
    """(B, V, V) squared distances between values at a level of measurement."""
    values = np.asarray(values, float)
    b, v = n_v.shape
    if level == "nominal":
        d = (values[:, None] != values[None, :]).astype(float)
        return np.broadcast_to(d, (b, v, v))
    if level == "interval":
        return np.broadcast_to((values[:, None] - values[None, :]) ** 2, (b, v, v))
    if level == "ordinal":
        cum = np.concatenate([np.zeros((b, 1)), np.cumsum(n_v, axis=1)], axis=1)
        i, j = np.indices((v, v))
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        between = cum[:, hi + 1] - cum[:, lo]
        return (between - (n_v[:, lo] + n_v[:, hi]) / 2) ** 2
    raise ValueError(f"level must be nominal, ordinal or interval, got {level!r}")


def krippendorff(coincidences: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's alpha of (B, V, V) coincidence matrices."""
    n_v = coincidences.sum(axis=1)
    n = n_v.sum(axis=1)
    expected = n_v[:, :, None] * n_v[:, None, :]
    idx = np.arange(n_v.shape[1])
    expected[:, idx, idx] -= n_v
    expected = _divide(expected, (n - 1)[:, None, None])
    d = krippendorff_distances(values, n_v, level)
    return 1 - _divide((coincidences * d).sum(axis=(1, 2)), (expected * d).sum(axis=(1, 2)))


def pairwise_agreement(value_counts: np.ndarray) -> np.ndarray:
    """Per unit: share of its rater pairs that agree, from (U, V) value counts (NaN if < 2)."""
    m = value_counts.sum(axis=1)
    agree = (value_counts * (value_counts - 1)).sum(axis=1)
    return _divide(agree, m * (m - 1))


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson correlation of each row pair of (B, R) arrays (NaN for a constant row)."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    return _divide((xc * yc).sum(axis=1), np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1)))
