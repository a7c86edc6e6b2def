"""Collect NLI pairs from many questions, deduplicated, and score them in one predict call.

A pair is (question, premise, hypothesis): the NLI backend prefixes both texts with the
question, so the same two texts under different questions are different pairs. Sampled
answers repeat a lot ("Paris" ten times), so deduplication removes most of the work.
"""

from collections.abc import Sequence

import numpy as np
from tqdm import tqdm

from evaluation.backends.base import NLI_LABELS, NLIModel


class NLIPairTable:
    """Grow with ``add`` / ``add_grid``; ``predict`` once; gather rows by the returned ids."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str, str], int] = {}
        self.requested = 0  # pairs asked for, duplicates included

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, question: str, premise: str, hypothesis: str) -> int:
        """Row id of the pair (a new row only for a pair not seen before)."""
        self.requested += 1
        key = (question, premise, hypothesis)
        if key not in self._ids:
            self._ids[key] = len(self._ids)
        return self._ids[key]

    def add_grid(
        self,
        question: str,
        premises: Sequence[str],
        hypotheses: Sequence[str],
        skip_diagonal: bool = False,
    ) -> np.ndarray:
        """Row ids of every (premise i, hypothesis j), shape (len(premises), len(hypotheses)).

        ``skip_diagonal`` leaves out pairs i == j (a response against itself), marked -1.
        """
        ids = np.full((len(premises), len(hypotheses)), -1, dtype=np.int64)
        for i, premise in enumerate(premises):
            for j, hypothesis in enumerate(hypotheses):
                if not (skip_diagonal and i == j):
                    ids[i, j] = self.add(question, premise, hypothesis)
        return ids

    def predict(
        self, nli: NLIModel, chunk_size: int | None = None, progress: bool = False
    ) -> np.ndarray:
        """(unique pairs, 3) probabilities: one predict call, or one per ``chunk_size`` pairs."""
        keys = list(self._ids)
        if not keys:
            return np.zeros((0, len(NLI_LABELS)))
        size = chunk_size or len(keys)
        starts = range(0, len(keys), size)
        parts = []
        for start in tqdm(starts, desc="NLI", unit="chunk", disable=not progress):
            chunk = keys[start : start + size]
            probs = np.asarray(
                nli.predict([(p, h) for _, p, h in chunk], questions=[q for q, _, _ in chunk]),
                dtype=np.float64,
            )
            if probs.shape != (len(chunk), len(NLI_LABELS)):
                raise RuntimeError(f"NLI model returned {probs.shape} for {len(chunk)} pairs")
            parts.append(probs)
        return np.concatenate(parts)


def gather(
    probs: np.ndarray, ids: np.ndarray, fill: Sequence[float] = (1.0, 0.0, 0.0)
) -> np.ndarray:
    """Probability rows for an id array; -1 ids (skipped pairs) get ``fill``.

    The default fill is certain entailment: a skipped pair is a text against itself.
    """
    out = probs[np.where(ids < 0, 0, ids)] if len(probs) else np.zeros((*ids.shape, 3))
    out = np.array(out, dtype=np.float64)
    out[ids < 0] = np.asarray(fill, dtype=np.float64)
    return out
