"""A small BM25 index over a collection's passage texts: what a SCAAR query would retrieve.

Plain Python on ``rank_bm25`` (Okapi BM25, k1 = 1.5, b = 0.75). Terms are the lowercased
word characters of the text, so a query's punctuation does not matter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rank_bm25 import BM25Okapi

_TERM = re.compile(r"\w+")


def terms(text: str) -> list[str]:
    return _TERM.findall(text.lower())


@dataclass(frozen=True)
class Hit:
    key: str  # the caller's id of the passage
    score: float


class Bm25Index:
    """BM25 over ``texts``; ``search`` returns the caller's ``keys`` of the best passages."""

    def __init__(self, keys: Sequence[str], texts: Sequence[str]) -> None:
        if len(keys) != len(texts):
            raise ValueError(f"{len(keys)} keys but {len(texts)} texts")
        self.keys = list(keys)
        # rank_bm25 divides by the corpus size: an empty index answers every query with nothing.
        self._bm25 = BM25Okapi([terms(t) for t in texts]) if texts else None

    def __len__(self) -> int:
        return len(self.keys)

    def search(self, query: str, k: int) -> list[Hit]:
        """The k highest-scoring passages with a positive score, best first (ties by order)."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        words = terms(query)
        if self._bm25 is None or not words:
            return []
        scores = np.asarray(self._bm25.get_scores(words), dtype=np.float64)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [Hit(self.keys[i], float(scores[i])) for i in order[:k] if scores[i] > 0]
