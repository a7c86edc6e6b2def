"""AP correlation tau-AP (Yilmaz, Aslam and Robertson, SIGIR 2008), with ties.

Two rankings of the same n items: the *list* (here the ranking one judge induces) is compared
with the *truth* (the ranking of the reference judge). With the list in order and C(i) the
number of items above position i in the list that the truth also places above the item at i,

    tau_AP = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1)  -  1.

Like Kendall's tau it lies in [-1, 1] (1: same order, -1: reversed), but a swap near the top of
the list costs more than one near the bottom. It is not symmetric: the list's order sets the
weights.

Ties (the paper assumes none): the value returned is the *expected* tau_AP when every tie, in
the list and in the truth, is broken uniformly at random, computed exactly (no sampling):

- a pair tied in the truth counts half correct (the probability a random tie-break orders it
  as the list does);
- for an item at position p inside a block of g items the list ties, the items above it are the
  blocks before (fixed) plus m = p - start random members of its own block; by linearity
  E[C(p)] = mean over the block's items x of (credit from the earlier blocks to x) +
  m / (g - 1) * (credit from the rest of the block to x).

Without ties this is the paper's tau_AP. When either ranking ties every item, or there are
fewer than two items, tau_AP is undefined (None), as Kendall's tau-b is.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def _credit(truth: np.ndarray) -> np.ndarray:
    """credit[y, x]: 1 if the truth places y above x, 0.5 if it ties them, else 0 (y != x)."""
    diff = truth[:, None] - truth[None, :]
    credit = (diff > 0).astype(np.float64) + 0.5 * (diff == 0)
    np.fill_diagonal(credit, 0.0)
    return credit


def tau_ap(scores: ArrayLike, truth: ArrayLike) -> float | None:
    """tau_AP of the ranking by ``scores`` (higher first) against the ranking by ``truth``
    (higher first); ties as the module says. NaN values are not allowed."""
    s = np.asarray(scores, dtype=np.float64)
    t = np.asarray(truth, dtype=np.float64)
    if s.shape != t.shape or s.ndim != 1:
        raise ValueError(f"scores and truth must be 1-d of one length, got {s.shape}, {t.shape}")
    if np.isnan(s).any() or np.isnan(t).any():
        raise ValueError("tau_ap needs a value for every item (NaN found)")
    n = s.size
    if n < 2 or np.ptp(s) == 0 or np.ptp(t) == 0:
        return None
    credit = _credit(t)
    above = s[:, None] > s[None, :]  # above[y, x]: the list puts y strictly above x
    tied = s[:, None] == s[None, :]
    np.fill_diagonal(tied, False)
    from_above = (credit * above).sum(axis=0)  # per item x
    from_block = (credit * tied).sum(axis=0)

    # The list's blocks of tied scores, best first: position p's block, its start and size.
    values, block_of, sizes = np.unique(-s, return_inverse=True, return_counts=True)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    mean_above = np.bincount(block_of, from_above) / sizes
    mean_block = np.bincount(block_of, from_block) / sizes
    position_block = np.repeat(np.arange(values.size), sizes)
    positions = np.arange(n)
    g = sizes[position_block]
    m = positions - starts[position_block]
    share = np.divide(m, g - 1, out=np.zeros(n), where=g > 1)
    expected_c = mean_above[position_block] + share * mean_block[position_block]
    total = float((expected_c[1:] / positions[1:]).sum())
    return 2.0 / (n - 1) * total - 1.0


def tau_ap_columns(scores: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``tau_ap(scores[:, c], truth[:, c])`` for every column c of two (n, M) arrays at once
    (NaN where undefined); the bootstrap's batch form, O(n^2 M) memory.

    Per item x with the list's block of ties B(x) starting at position s (the items strictly
    above) of size g: the positions p of the block, s..s+g-1 without the top position 0, add
    (mean credit from above + (p - s) / (g - 1) * mean credit from the block) / p; each of the
    g items of the block adds 1/g of that, with S1 = sum 1/p and S2 = sum (p - s)/p.
    """
    s = np.asarray(scores, dtype=np.float64)
    t = np.asarray(truth, dtype=np.float64)
    if s.shape != t.shape or s.ndim != 2:
        raise ValueError(
            f"scores and truth must be (n, M) arrays of one shape: {s.shape}, {t.shape}"
        )
    n, m = s.shape
    out = np.full(m, np.nan)
    if n < 2:
        return out
    higher = t[:, None, :] > t[None, :, :]  # [y, x, c]: the truth puts y above x
    level = t[:, None, :] == t[None, :, :]
    level[np.arange(n), np.arange(n)] = False
    above = s[:, None, :] > s[None, :, :]  # the list puts y strictly above x
    same = s[:, None, :] == s[None, :, :]  # the list ties y and x (y == x included)
    from_above = (higher & above).sum(axis=0) + 0.5 * (level & above).sum(axis=0)  # (n, M)
    g = same.sum(axis=0)  # block size, >= 1
    start = above.sum(axis=0)  # items strictly above x
    mean_above = from_above.astype(np.float64)
    mean_block = np.zeros((n, m))
    tied = np.flatnonzero((g > 1).any(axis=0))  # columns whose list has ties (rare)
    if tied.size:
        in_block = same[:, :, tied]
        from_block = (higher[:, :, tied] & in_block).sum(axis=0) + 0.5 * (
            level[:, :, tied] & in_block
        ).sum(axis=0)
        gt = g[:, tied]
        mean_above[:, tied] = (in_block * from_above[:, None, tied]).sum(axis=0) / gt
        mean_block[:, tied] = (in_block * from_block[:, None, :]).sum(axis=0) / gt
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))])
    first = np.maximum(start, 1)
    last = start + g - 1
    s1 = np.where(last >= first, harmonic[last] - harmonic[first - 1], 0.0)
    count = np.maximum(last - first + 1, 0)
    s2 = count - start * s1
    share = np.divide(mean_block, g - 1, out=np.zeros_like(mean_block), where=g > 1)
    total = ((mean_above * s1 + share * s2) / g).sum(axis=0)
    values = 2.0 / (n - 1) * total - 1.0
    defined = (np.ptp(s, axis=0) > 0) & (np.ptp(t, axis=0) > 0)
    out[defined] = values[defined]
    return out


def tau_ap_symmetric(a: ArrayLike, b: ArrayLike) -> float | None:
    """The mean of tau_AP(a vs b) and tau_AP(b vs a): neither ranking is the truth."""
    first, second = tau_ap(a, b), tau_ap(b, a)
    if first is None or second is None:
        return None
    return (first + second) / 2.0
