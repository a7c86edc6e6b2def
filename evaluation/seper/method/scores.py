"""SePer and Delta-SePer (METHODS section 2) from response scores and NLI probabilities.

For a question with gold answers a_1..a_m and N sampled responses r_1..r_N:

- s_i = mean token log-prob of r_i; weights w = softmax(s) over the N samples.
- k(r, a) = max(E(r, a), E(a, r)), E = P(entailment) (``seper_kernel.entailment_kernel``).
- SePer_S = max_j sum_i w_i k(r_i, a_j). Arrays here are always response-major, (N, m): the
  authors' code built gold-major pairs and reshaped them response-major, which mis-pairs
  weights and kernels whenever m > 1; indexing [i, j] explicitly cannot.
- SePer_H: greedy clusters of bidirectionally entailing responses, mass = sum of member
  weights; a cluster matches when its first member is loosely equivalent to some gold;
  SePer_H = total mass of matching clusters.
- Delta-SePer(D) = SePer(x, A | D) - SePer(x, A | no context).

Pure numpy: the service that samples and calls the NLI model lives in
``evaluation.seper.engine``.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import softmax

from evaluation.seper.method.kernel import (
    bidirectional_entailment,
    check_nli_probs,
    entailment_kernel,
    greedy_clusters,
    loosely_equivalent,
    nli_labels,
)


def response_scores(token_logprobs: Sequence[Sequence[float]]) -> np.ndarray:
    """s_i = mean token log-prob of each response.

    A response with no token (the model stopped at once, e.g. its first token was the newline)
    has no mean; it gets the lowest score among the responses that have tokens, so it still
    counts as a sample without dominating (a mean over zero tokens read as 0 = probability 1
    would give it nearly all the weight). When no response has a token all scores are 0, i.e.
    equal weights.
    """
    if len(token_logprobs) == 0:
        raise ValueError("SePer needs at least one sampled response")
    means = [float(np.mean(lp)) if len(lp) else np.nan for lp in token_logprobs]
    scores = np.asarray(means, dtype=np.float64)
    has_tokens = ~np.isnan(scores)
    # A log-prob a rounding error above 0 is 0; anything larger is not a log-probability.
    if np.any(np.isinf(scores)) or np.any(scores[has_tokens] > 1e-6):
        raise ValueError("token log-probs must be finite and <= 0")
    scores = np.minimum(scores, 0.0)
    fill = scores[has_tokens].min() if has_tokens.any() else 0.0
    return np.where(has_tokens, scores, fill)


def response_weights(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """w = softmax(s): the responses' normalised likelihoods, summing to 1."""
    array = np.asarray(scores, dtype=np.float64)
    if array.ndim != 1 or array.size == 0 or not np.all(np.isfinite(array)):
        raise ValueError("scores must be a non-empty 1-d array of finite numbers")
    return softmax(array)


def _check_weights_kernel(weights: np.ndarray, kernel: np.ndarray) -> tuple[np.ndarray, ...]:
    w = np.asarray(weights, dtype=np.float64)
    k = np.asarray(kernel, dtype=np.float64)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"weights must be a non-empty 1-d array, got shape {w.shape}")
    if np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError("weights must be non-negative and sum to 1")
    if k.ndim != 2 or k.shape[0] != w.size or k.shape[1] == 0:
        raise ValueError(
            f"kernel must be (responses, golds) = ({w.size}, m >= 1), got shape {k.shape}"
        )
    if np.any(k < 0) or np.any(k > 1):
        raise ValueError("kernel values must lie in [0, 1]")
    return w, k


def gold_masses(weights: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """sum_i w_i k(r_i, a_j) for each gold answer j; ``kernel`` is (N, m), response-major."""
    w, k = _check_weights_kernel(weights, kernel)
    return w @ k


def seper_soft(weights: np.ndarray, kernel: np.ndarray) -> float:
    """SePer_S = max_j sum_i w_i k(r_i, a_j)."""
    return float(gold_masses(weights, kernel).max())


@dataclass(frozen=True)
class Cluster:
    """A semantic cluster: response indices (first member first), its mass, matched golds."""

    members: tuple[int, ...]
    mass: float
    matched_golds: tuple[int, ...]

    @property
    def matches_gold(self) -> bool:
        return bool(self.matched_golds)

    def to_dict(self) -> dict[str, object]:
        return {
            "members": list(self.members),
            "mass": self.mass,
            "matched_golds": list(self.matched_golds),
            "matches_gold": self.matches_gold,
        }


def build_clusters(
    weights: np.ndarray, members: Sequence[Sequence[int]], gold_match: np.ndarray
) -> list[Cluster]:
    """Clusters with masses; ``gold_match[c, j]``: cluster c's first member matches gold j."""
    w = np.asarray(weights, dtype=np.float64)
    match = np.asarray(gold_match, dtype=bool)
    if match.ndim != 2 or match.shape[0] != len(members):
        raise ValueError(f"gold_match must be (clusters, golds), got shape {match.shape}")
    seen = sorted(i for cluster in members for i in cluster)
    if seen != list(range(w.size)):
        raise ValueError("clusters must partition the responses")
    return [
        Cluster(
            members=tuple(int(i) for i in cluster),
            mass=float(w[list(cluster)].sum()),
            matched_golds=tuple(int(j) for j in np.flatnonzero(match[c])),
        )
        for c, cluster in enumerate(members)
    ]


def seper_hard(clusters: Sequence[Cluster]) -> float:
    """SePer_H = total mass of the clusters that match any gold answer."""
    return float(sum(c.mass for c in clusters if c.matches_gold))


@dataclass(frozen=True)
class SeperScore:
    """Everything SePer computes for one (question, context): arrays are response-major."""

    weights: np.ndarray  # (N,)
    kernel: np.ndarray  # (N, m) k(r_i, a_j)
    gold_masses: np.ndarray  # (m,) sum_i w_i k(r_i, a_j)
    clusters: list[Cluster]
    soft: float
    hard: float
    # (N, m) response i loosely equivalent to gold j: the kernel's per-response decision
    # (a cluster's decision is its first member's row).
    response_matches: np.ndarray | None = None

    def response_decisions(self) -> list[bool]:
        """Per response: does it loosely match any gold answer?"""
        if self.response_matches is None:
            raise ValueError("this score was built without per-response matches")
        return [bool(row.any()) for row in np.asarray(self.response_matches, dtype=bool)]

    @property
    def best_gold(self) -> int:
        """Index of the gold answer that gives SePer_S (first on ties)."""
        return int(np.argmax(self.gold_masses))

    def to_dict(self) -> dict[str, object]:
        return {
            "weights": self.weights.tolist(),
            "kernel": self.kernel.tolist(),
            "gold_masses": self.gold_masses.tolist(),
            "best_gold": self.best_gold,
            "clusters": [c.to_dict() for c in self.clusters],
            "seper_soft": self.soft,
            "seper_hard": self.hard,
            **(
                {}
                if self.response_matches is None
                else {"response_matches": np.asarray(self.response_matches, bool).tolist()}
            ),
        }


def score_responses(
    weights: np.ndarray,
    response_gold: np.ndarray,
    gold_response: np.ndarray,
    response_response: np.ndarray,
) -> SeperScore:
    """SePer_S and SePer_H of N weighted responses against m gold answers.

    ``response_gold[i, j]`` = NLI(premise r_i, hypothesis a_j) and ``gold_response[i, j]`` =
    NLI(premise a_j, hypothesis r_i), both (N, m, 3); ``response_response[i, j]`` =
    NLI(premise r_i, hypothesis r_j), (N, N, 3), of which only the off-diagonal is read.
    """
    rg = check_nli_probs(response_gold, "response_gold")
    gr = check_nli_probs(gold_response, "gold_response")
    rr = check_nli_probs(response_response, "response_response")
    n = np.asarray(weights).size
    if rg.ndim != 3 or rg.shape[0] != n or rg.shape != gr.shape:
        raise ValueError(
            f"response_gold {rg.shape} and gold_response {gr.shape} must both be ({n}, m, 3)"
        )
    if rr.shape != (n, n, 3):
        raise ValueError(f"response_response must be ({n}, {n}, 3), got {rr.shape}")
    kernel = entailment_kernel(rg, gr)
    masses = gold_masses(weights, kernel)
    rr_labels = nli_labels(rr)
    members = greedy_clusters(bidirectional_entailment(rr_labels, rr_labels.T))
    firsts = [cluster[0] for cluster in members]
    response_matches = loosely_equivalent(nli_labels(rg), nli_labels(gr))
    clusters = build_clusters(weights, members, response_matches[firsts])
    return SeperScore(
        weights=np.asarray(weights, dtype=np.float64),
        kernel=kernel,
        gold_masses=masses,
        clusters=clusters,
        soft=float(masses.max()),
        hard=seper_hard(clusters),
        response_matches=response_matches,
    )


@dataclass(frozen=True)
class DeltaSeper:
    """Delta-SePer(D) = SePer(x, A | D) - SePer(x, A | no context), soft and hard."""

    soft: float
    hard: float

    @classmethod
    def between(cls, with_context: SeperScore, baseline: SeperScore) -> "DeltaSeper":
        return cls(soft=with_context.soft - baseline.soft, hard=with_context.hard - baseline.hard)
