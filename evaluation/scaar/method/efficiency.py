"""SCAAR's answer scores and retrieval efficiency S_eff = Delta S / N_R (seed 002, Sec. 4.1).

Plain Python. The score of a short answer is SQuAD token F1 (or exact match) against the gold
answers, best over the golds, on the normalisation of ``lexical_match``. Over a set of answers,
S_eff is the mean score improvement divided by the mean number of retrievals, as the paper
reports it; it is undefined (None) when nothing was retrieved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from evaluation.shared.lexical_match import exact_match, normalize_answer


def token_f1(answer: str, golds: Iterable[str]) -> float:
    """Best SQuAD token F1 of the answer against any gold answer (0 when there are none)."""
    predicted = normalize_answer(answer).split()
    best = 0.0
    for gold in golds:
        expected = normalize_answer(gold).split()
        common = sum((Counter(predicted) & Counter(expected)).values())
        if common == 0:
            continue
        precision, recall = common / len(predicted), common / len(expected)
        best = max(best, 2 * precision * recall / (precision + recall))
    return best


def answer_score(answer: str, golds: Sequence[str], metric: str = "f1") -> float:
    """``f1`` (token F1) or ``em`` (exact match as 0/1) of an answer against its golds."""
    if metric == "f1":
        return token_f1(answer, golds)
    if metric == "em":
        return float(exact_match(answer, golds))
    raise ValueError(f"score metric must be 'f1' or 'em', got {metric!r}")


def retrieval_efficiency(deltas: Sequence[float], retrievals: Sequence[int]) -> float | None:
    """S_eff = mean(Delta S) / mean(N_R) over answers; None without any retrieval."""
    if len(deltas) != len(retrievals):
        raise ValueError(f"{len(deltas)} score deltas but {len(retrievals)} retrieval counts")
    if not deltas or sum(retrievals) == 0:
        return None
    return (sum(deltas) / len(deltas)) / (sum(retrievals) / len(retrievals))
