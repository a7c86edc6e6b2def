"""SePer's entailment kernel, NLI label decisions and greedy semantic clustering (METHODS 2).

Every function takes NLI probabilities with the label axis last, columns in the app's
``NLI_LABELS`` order (entailment, neutral, contradiction). Pure numpy, no model.
"""

import numpy as np

# Columns of an NLI probability row (evaluation.backends.base.NLI_LABELS).
ENTAILMENT, NEUTRAL, CONTRADICTION = 0, 1, 2
_SLACK = 1e-5


def check_nli_probs(probs: np.ndarray, name: str) -> np.ndarray:
    """``probs`` as a float array whose last axis holds three probabilities, or ValueError.

    Values a rounding error outside [0, 1] (a float32 softmax can give 1.0000001) are clipped.
    """
    array = np.asarray(probs, dtype=np.float64)
    if array.ndim < 1 or array.shape[-1] != 3:
        raise ValueError(f"{name}: NLI probabilities need a last axis of 3, got {array.shape}")
    if not np.all(np.isfinite(array)) or np.any(array < -_SLACK) or np.any(array > 1 + _SLACK):
        raise ValueError(f"{name}: NLI probabilities must be finite and within [0, 1]")
    return np.clip(array, 0.0, 1.0)


def entailment_kernel(forward: np.ndarray, backward: np.ndarray) -> np.ndarray:
    """k(r, a) = max(E(r, a), E(a, r)) from the NLI probabilities of both directions.

    ``forward[..., :]`` is NLI(premise r, hypothesis a) and ``backward`` NLI(premise a,
    hypothesis r), same leading shape; E is the entailment probability.
    """
    forward = check_nli_probs(forward, "forward")
    backward = check_nli_probs(backward, "backward")
    if forward.shape != backward.shape:
        raise ValueError(f"forward {forward.shape} and backward {backward.shape} differ")
    return np.maximum(forward[..., ENTAILMENT], backward[..., ENTAILMENT])


def nli_labels(probs: np.ndarray) -> np.ndarray:
    """Argmax label index of each probability row (ties go to the lower column)."""
    return np.argmax(check_nli_probs(probs, "probs"), axis=-1)


def bidirectional_entailment(labels_ab: np.ndarray, labels_ba: np.ndarray) -> np.ndarray:
    """Both directions' argmax label is entailment (semantic equivalence of two responses)."""
    return (np.asarray(labels_ab) == ENTAILMENT) & (np.asarray(labels_ba) == ENTAILMENT)


def loosely_equivalent(labels_ab: np.ndarray, labels_ba: np.ndarray) -> np.ndarray:
    """No contradiction either way and not neutral both ways (the authors' 'loose' match)."""
    ab, ba = np.asarray(labels_ab), np.asarray(labels_ba)
    no_contradiction = (ab != CONTRADICTION) & (ba != CONTRADICTION)
    return no_contradiction & ~((ab == NEUTRAL) & (ba == NEUTRAL))


def greedy_clusters(equivalent: np.ndarray) -> list[list[int]]:
    """Cluster responses in sampling order; ``equivalent[j, f]`` says j may join f's cluster.

    Each response joins the first existing cluster whose first member f it is equivalent to,
    else opens a new cluster. Only entries with f < j that are first members are read, so the
    matrix need not be symmetric and its diagonal is ignored.
    """
    matrix = np.asarray(equivalent, dtype=bool)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"the equivalence matrix must be square, got {matrix.shape}")
    clusters: list[list[int]] = []
    for j in range(matrix.shape[0]):
        home = next((c for c in clusters if matrix[j, c[0]]), None)
        if home is None:
            clusters.append([j])
        else:
            home.append(j)
    return clusters
