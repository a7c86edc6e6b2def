"""Percentile bootstrap over items, as weighted sums of per-item contributions.

Drawing n items with replacement from n items is a multinomial draw of how often each item
is taken; items with identical contributions (the same pair of labels, the same category
counts) can be merged and drawn as one pattern with its frequency. That is the same
distribution, and it makes 200 resamples of 100,000 items one small matrix product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 200
DEFAULT_SEED = 0
# Below this share of defined resamples the interval is shown with a note.
DEFINED_SHARE_NOTE = 0.95


@dataclass(frozen=True)
class Patterns:
    """Distinct per-item contribution vectors and how many items have each."""

    rows: np.ndarray  # (P, D)
    counts: np.ndarray  # (P,)
    # When every row is one-hot: the column of each row's 1 (sums become a scatter).
    onehot: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    def total(self) -> np.ndarray:
        """(D,) sum over all items: the observed sufficient statistic."""
        return self.counts.astype(float) @ self.rows


def compress(contributions: np.ndarray) -> Patterns:
    """Merge identical rows of an (n_items, D) contribution array."""
    contributions = np.asarray(contributions)
    if contributions.shape[0] == 0:
        return Patterns(np.zeros((0, contributions.shape[1])), np.zeros(0, np.int64))
    rows, counts = np.unique(contributions, axis=0, return_counts=True)
    return Patterns(rows.astype(float), counts)


def compress_codes(codes: np.ndarray, n_codes: int) -> Patterns:
    """Items given as one of ``n_codes`` one-hot patterns (e.g. a pair of labels)."""
    counts = np.bincount(np.asarray(codes, np.int64), minlength=n_codes)
    keep = np.flatnonzero(counts)
    rows = np.zeros((len(keep), n_codes))
    rows[np.arange(len(keep)), keep] = 1
    return Patterns(rows, counts[keep], keep)


def dense_ids(ids: np.ndarray) -> tuple[np.ndarray, int]:
    """``ids`` renumbered 0..m-1 in increasing order, and m (the number of distinct ids).

    Non-negative ids of a small range (row numbers, item pks) are renumbered by counting, in
    linear time; anything else falls back on ``np.unique``, which sorts.
    """
    ids = np.asarray(ids, np.int64)
    if ids.size == 0:
        return ids, 0
    low, high = int(ids.min()), int(ids.max())
    if low >= 0 and high <= 4 * ids.size + 1024:
        present = np.zeros(high + 1, bool)
        present[ids] = True
        number = np.cumsum(present) - 1
        return number[ids], int(number[-1]) + 1
    distinct, inverse = np.unique(ids, return_inverse=True)
    return inverse.reshape(-1), len(distinct)


def compress_groups(item: np.ndarray, codes: np.ndarray, n_codes: int) -> Patterns:
    """Items made of several one-hot codes each (``item[i]`` owns ``codes[i]``; pooled pairs).

    An item's multiset of codes is written as one integer (its sorted codes as digits in base
    n_codes + 1) so that merging is a 1-D ``unique``; only when that cannot fit in 62 bits are
    the dense rows compared, which is much slower.
    """
    item, codes = np.asarray(item, np.int64), np.asarray(codes, np.int64)
    if item.size == 0:
        return Patterns(np.zeros((0, n_codes)), np.zeros(0, np.int64))
    item, n_items = dense_ids(item)
    # One stable sort on a combined key: pooled pairs arrive as a few runs already ordered by
    # item (one per reference), which timsort merges in near-linear time; lexsort would not.
    order = np.argsort(item * n_codes + codes, kind="stable")
    item, codes = item[order], codes[order]
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    sizes = np.diff(np.r_[starts, item.size])
    base = n_codes + 1
    if int(sizes.max()) * np.log2(base) >= 62:
        dense = np.bincount(item * n_codes + codes, minlength=n_items * n_codes)
        return compress(dense.reshape(n_items, n_codes).astype(np.int32))
    rank = np.arange(item.size) - np.repeat(starts, sizes)
    digits = (codes + 1) * base ** rank.astype(np.int64)
    keys = np.add.reduceat(digits, starts)
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    # The codes of each pattern's first item, scattered into its row in one pass.
    of_item = np.full(n_items, -1, np.int64)
    of_item[first] = np.arange(len(first))
    owner = of_item[item]
    mine = owner >= 0
    cells = np.bincount(owner[mine] * n_codes + codes[mine], minlength=len(first) * n_codes)
    return Patterns(cells.reshape(len(first), n_codes).astype(float), counts)


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None
    note: str | None = None


@dataclass(frozen=True)
class Bootstrap:
    """Resampling settings; ``n_resamples = 0`` turns intervals off."""

    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = 0.95

    def __post_init__(self) -> None:
        if self.n_resamples < 0:
            raise ValueError(f"n_resamples must be >= 0, got {self.n_resamples}")
        if not 0 < self.level < 1:
            raise ValueError(f"level must lie in (0, 1), got {self.level}")

    def draws(self, patterns: Patterns) -> np.ndarray:
        """(B, P) how often each pattern is drawn in B resamples of the items (0 rows when
        disabled)."""
        if self.n_resamples == 0 or patterns.n_items == 0:
            return np.zeros((0, len(patterns.counts)))
        rng = np.random.default_rng(self.seed)
        n = patterns.n_items
        return rng.multinomial(n, patterns.counts / n, size=self.n_resamples).astype(float)

    def totals(self, patterns: Patterns) -> np.ndarray:
        """(B, D) contribution sums of B resamples of the items (0 rows when disabled)."""
        draws = self.draws(patterns)
        if patterns.onehot is None:
            return draws @ patterns.rows
        out = np.zeros((len(draws), patterns.rows.shape[1]))
        out[:, patterns.onehot] = draws
        return out

    def indices(self, n: int) -> np.ndarray:
        """(B, n) item indices of B resamples, for statistics that are no sum over items."""
        rng = np.random.default_rng(self.seed)
        return rng.integers(0, n, size=(self.n_resamples, n))

    def interval(self, replicates: np.ndarray) -> Interval:
        """Percentile interval of the defined (finite) replicates."""
        replicates = np.asarray(replicates, float)
        if replicates.size == 0:
            return Interval(None, None)
        finite = replicates[np.isfinite(replicates)]
        if finite.size == 0:
            return Interval(None, None, "undefined in every resample")
        tail = (1 - self.level) / 2 * 100
        low, high = np.percentile(finite, [tail, 100 - tail])
        note = None
        if finite.size < DEFINED_SHARE_NOTE * replicates.size:
            note = f"interval from the {finite.size} of {replicates.size} resamples where defined"
        return Interval(float(low), float(high), note)
