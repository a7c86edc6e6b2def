"""DENSE (seed 003): the entailment graph W, degree-based semantic entropy and chunk labels.

Responses r_0..r_k answer the same question under the original context C_0 and the k
single-edit contexts C_i (chunk i rephrased). With NLI(a, b) = 1 when the judge says a entails
b and 0 otherwise:

    W[i][j] = (NLI(r_i, r_j) + NLI(r_j, r_i)) / 2,   W[i][i] = 1
    D_i = sum_j W[i][j]
    DSE = -(1 / (k + 1)) * sum_i log(D_i / (k + 1))      in [0, log(k + 1)]

A question is uncertain when DSE > threshold (default 0.2). Chunk i is *certain* when
W[i][0] = 1 (both directions entail); otherwise the question is answered again without chunk
i (answer ar_i) and chunk i is *necessary* when ar_i is not equivalent to r_0 (equivalent =
entailment both ways, as in the paper's Algorithm 3), else *unnecessary*. The paper's eq. 10
calls a chunk necessary only when neither direction entails; Algorithm 3 and METHODS.md
treat one-way entailment as "not equivalent", which is what is implemented.

Plain Python and numpy; the model calls live in ``dense_engine``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

DEFAULT_THRESHOLD = 0.2
CERTAIN = "certain"
NECESSARY = "necessary"
UNNECESSARY = "unnecessary"
CHUNK_LABELS = (CERTAIN, NECESSARY, UNNECESSARY)


def entailment_weights(directed: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """W from the directed decisions ``directed[i][j] = NLI(r_i, r_j)`` (0/1); diagonal 1."""
    d = np.asarray(directed, dtype=float)
    if d.ndim != 2 or d.shape[0] != d.shape[1] or d.shape[0] == 0:
        raise ValueError(f"directed NLI decisions must be a non-empty square matrix, got {d.shape}")
    if not np.isin(d, (0.0, 1.0)).all():
        raise ValueError("directed NLI decisions must be 0 or 1")
    w = (d + d.T) / 2.0
    np.fill_diagonal(w, 1.0)
    return w


def degrees(w: np.ndarray) -> np.ndarray:
    """D_i = sum_j W[i][j]."""
    return np.asarray(w, dtype=float).sum(axis=1)


def degree_entropy(w: np.ndarray | Sequence[Sequence[float]]) -> float:
    """DSE of an entailment graph W ((k+1) x (k+1), symmetric, unit diagonal)."""
    w = np.asarray(w, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] == 0:
        raise ValueError(f"W must be a non-empty square matrix, got shape {w.shape}")
    if not np.allclose(np.diag(w), 1.0):
        raise ValueError("W must have a unit diagonal (every response entails itself)")
    n = w.shape[0]
    d = degrees(w)
    value = -float(np.mean(np.log(d / n)))
    # Exact agreement gives -0.0 in floating point; keep the range [0, log(n)] tidy.
    return max(0.0, value)


def max_entropy(k: int) -> float:
    """log(k + 1): DSE when every response differs from every other."""
    return math.log(k + 1)


def is_uncertain(dse: float, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """The paper's split: uncertain when DSE > threshold (certain when DSE <= threshold)."""
    return dse > threshold


def certain_chunks(w: np.ndarray) -> list[bool]:
    """Chunk i (1-based in W, 0-based in the result) is certain when W[i][0] = W[0][i] = 1."""
    w = np.asarray(w, dtype=float)
    return [bool(w[i, 0] == 1.0 and w[0, i] == 1.0) for i in range(1, w.shape[0])]


def chunk_labels(w: np.ndarray, ablation_equivalent: Mapping[int, bool]) -> list[str]:
    """certain / necessary / unnecessary per chunk (0-based, context order).

    ``ablation_equivalent[i]``: whether the answer without chunk i is equivalent (entailment
    both ways) to r_0; needed for every chunk that is not certain.
    """
    labels = []
    for i, certain in enumerate(certain_chunks(w)):
        if certain:
            labels.append(CERTAIN)
            continue
        if i not in ablation_equivalent:
            raise ValueError(f"chunk {i} is not certain and has no ablation answer")
        labels.append(UNNECESSARY if ablation_equivalent[i] else NECESSARY)
    return labels


def equivalent(forward: bool, backward: bool) -> bool:
    """Two answers are equivalent when each entails the other (weight 1 in W)."""
    return forward and backward
