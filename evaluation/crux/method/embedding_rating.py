"""The embedding baseline judge's rubric: the cosine between a sub-question and a context
(both embedded and L2-normalised), mapped to CRUX's 0-5 scale by fixed cut points.

A cheap reference point, not a reader: it says how close in topic a context is to a question,
not whether it answers it. The cut points suit all-MiniLM-L6-v2 (the embedded embedder): an
unrelated pair lands near 0-0.15, a same-topic pair near 0.3-0.5, a passage restating the
answer to a question above 0.6. A rating r is given for a cosine in
[CUT_POINTS[r - 1], CUT_POINTS[r]); below the first cut point the rating is 0.
"""

from __future__ import annotations

import numpy as np

PROMPT_VERSION = "cosine-v1"  # the judge identity's "prompt": this rubric's version
CUT_POINTS = (0.15, 0.25, 0.35, 0.45, 0.6)  # lower bounds of ratings 1..5


def ratings_from_cosines(cosines: np.ndarray) -> np.ndarray:
    """0-5 ratings of cosines in [-1, 1] (NaN is refused: every pair has a cosine)."""
    values = np.asarray(cosines, dtype=float)
    if np.isnan(values).any():
        raise ValueError("a cosine is NaN: both texts need an embedding")
    return np.searchsorted(np.asarray(CUT_POINTS), values, side="right").astype(int)


def row_cosines(questions: np.ndarray, contexts: np.ndarray) -> np.ndarray:
    """Cosine of each question row with the context row of the same index (unit vectors)."""
    q, c = np.asarray(questions, dtype=float), np.asarray(contexts, dtype=float)
    if q.shape != c.shape:
        raise ValueError(f"{q.shape[0]} questions but {c.shape[0]} contexts")
    return np.clip(np.einsum("ij,ij->i", q, c), -1.0, 1.0)
