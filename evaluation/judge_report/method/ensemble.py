"""Combining several judges' integer labels of the same items into one label per item.

Input: a (items, members) float array of ratings (or grades), NaN where a member has no label
for the item (it did not rate it, or its output could not be parsed: a refusal counts as no
label, never as 0). An item gets a combined label only where at least ``min_members`` members
labelled it; the combined label is an integer on the members' own scale:

- ``mean``: the mean of the available labels rounded half up (2.5 -> 3, 2.49 -> 2), computed
  exactly in integers: floor((2 * sum + n) / (2 * n)).
- ``median``: the middle label; with an even number of labels the mean of the two middle ones,
  rounded half up ((2, 3) -> 3).
- ``majority``: the most frequent label; a tie between labels goes to the lowest of them
  (a conservative judge: two judges saying 1 and 4 give 1, so a tie never makes a passage
  relevant).
- ``max``: the highest label (a passage is as relevant as its most generous judge says).

Rounding half up rather than Python's round-half-even keeps a mean of 2.5 at 3 and 3.5 at 4
alike: the rule does not depend on the parity of the rating.
"""

from __future__ import annotations

import numpy as np

COMBINERS = ("mean", "median", "majority", "max")


def _check(ratings: np.ndarray, combiner: str, min_members: int) -> np.ndarray:
    values = np.asarray(ratings, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"ratings must be a 2-d (items, members) array, got {values.shape}")
    if combiner not in COMBINERS:
        raise ValueError(f"combiner must be one of {', '.join(COMBINERS)}, got {combiner!r}")
    if not 1 <= min_members <= max(values.shape[1], 1):
        raise ValueError(
            f"min_members must lie in [1, {values.shape[1]}] (the members), got {min_members}"
        )
    finite = values[np.isfinite(values)]
    if finite.size and not np.array_equal(finite, np.round(finite)):
        raise ValueError("ratings must be integers (or NaN for a missing label)")
    return values


def _mean(values: np.ndarray, present: np.ndarray, n: np.ndarray) -> np.ndarray:
    total = np.where(present, values, 0).sum(axis=1).astype(np.int64)
    safe = np.maximum(n, 1)
    return (2 * total + safe) // (2 * safe)


def _median(values: np.ndarray, n: np.ndarray) -> np.ndarray:
    ordered = np.sort(values, axis=1)  # NaN sorts last
    rows = np.arange(len(values))
    safe = np.maximum(n, 1)
    low = ordered[rows, (safe - 1) // 2]
    high = ordered[rows, safe // 2]
    low = np.where(np.isfinite(low), low, 0).astype(np.int64)
    high = np.where(np.isfinite(high), high, 0).astype(np.int64)
    return (low + high + 1) // 2


def _majority(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    # How many members gave each member's label (members are few: an m x m comparison).
    same = (values[:, :, None] == values[:, None, :]) & present[:, None, :]
    votes = same.sum(axis=2)
    filled = np.where(present, values, 0).astype(np.int64)
    # Most votes first, then the lowest label: order by votes descending, label ascending.
    span = int(np.abs(filled).max(initial=0)) * 2 + 1
    key = np.where(present, votes * span - filled, np.iinfo(np.int64).min)
    best = key.argmax(axis=1)
    return filled[np.arange(len(values)), best]


def combine(ratings: np.ndarray, combiner: str, min_members: int) -> tuple[np.ndarray, np.ndarray]:
    """(labels, labelled): int64 combined labels (0 where not labelled) and a bool mask of the
    items with at least ``min_members`` labels."""
    values = _check(ratings, combiner, min_members)
    present = np.isfinite(values)
    n = present.sum(axis=1)
    labelled = n >= min_members
    if values.shape[0] == 0:
        return np.zeros(0, np.int64), labelled
    if combiner == "mean":
        labels = _mean(values, present, n)
    elif combiner == "median":
        labels = _median(values, n)
    elif combiner == "majority":
        labels = _majority(values, present)
    else:
        labels = np.where(present, values, -np.inf).max(axis=1)
        labels = np.where(np.isfinite(labels), labels, 0).astype(np.int64)
    return np.where(labelled, labels, 0).astype(np.int64), labelled
