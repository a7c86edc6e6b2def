"""The entailment kernel's answer-equivalence decision on given answers (not sampled ones).

For each (question, gold answers, answer): NLI both ways between the answer and every gold,
prefixed with the question, all pairs of the batch deduplicated into one ``predict`` call; the
answer matches gold j when the two are loosely equivalent (SePer_H's gold match, METHODS 2:
no contradiction either way and not neutral both ways). No Django: the SePer job calls this on
a topic's generated answers, which crowd annotators judge in answer-equivalence campaigns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.backends.base import NLIModel
from evaluation.backends.nli_pairs import NLIPairTable, gather
from evaluation.seper.method.kernel import entailment_kernel, loosely_equivalent, nli_labels


@dataclass(frozen=True)
class AnswerToDecide:
    question: str
    golds: tuple[str, ...]
    answer: str


@dataclass(frozen=True)
class AnswerDecision:
    equivalent: bool  # loosely equivalent to at least one gold
    matched_golds: list[int]
    kernel: list[float]  # k(answer, gold_j) = max of the two entailment probabilities


def decide_answers(items: Sequence[AnswerToDecide], nli: NLIModel) -> list[AnswerDecision]:
    """One decision per item, in order; ValueError naming the item when something is blank."""
    for index, item in enumerate(items):
        if not item.answer.strip():
            raise ValueError(f"answer {index}: the answer text is blank")
        if not item.golds or any(not g.strip() for g in item.golds):
            raise ValueError(f"answer {index}: needs non-blank gold answers")
    table = NLIPairTable()
    ids = []
    for item in items:
        golds = [g.strip() for g in item.golds]
        answer = [item.answer.strip()]
        question = item.question.strip()
        forward = table.add_grid(question, answer, golds)  # (1, m) answer => gold
        backward = table.add_grid(question, golds, answer)  # (m, 1) gold => answer
        ids.append((forward, backward))
    probs = table.predict(nli)
    decisions = []
    for forward, backward in ids:
        rg = gather(probs, forward)[0]  # (m, 3)
        gr = gather(probs, backward)[:, 0]  # (m, 3)
        matches = loosely_equivalent(nli_labels(rg), nli_labels(gr))
        decisions.append(
            AnswerDecision(
                equivalent=bool(matches.any()),
                matched_golds=[int(j) for j in np.flatnonzero(matches)],
                kernel=[float(v) for v in entailment_kernel(rg, gr)],
            )
        )
    return decisions
