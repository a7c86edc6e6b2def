"""CRUX answerability and coverage (METHODS section 1), vectorised over topics.

A text answers sub-question i when its rating r >= tau. The answerable set is
A = {i : max over required (oracle) passages of r >= tau}; placeholder and unanswerable
sub-questions are in no denominator. Coverage of a context C is
|{i in A : max_{p in C} r(p, i) >= tau}| / |A|; a generated report is a one-passage context.

Unjudged ratings (NaN) are never silently 0. They are counted (``missing``); a sub-question
whose outcome hinges on them is *undetermined*, and the coverage value is then undefined
(NaN / None with a reason) and bracketed by ``lower`` (unjudged = does not answer) and
``upper`` (unjudged = answers). ``missing_as_zero=True`` is the caller asking for the lower
bound as the value. Coverage with an empty A is undefined, never 0.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from crux_app.vocabulary import DEFAULT_TAU, MAX_TAU, MIN_TAU
from evaluation.crux.method.crux_ratings import (
    OUTSIDE,
    RatingsBatch,
    TopicRatings,
    check_rating_range,
    context_ratings,
    stack_contexts,
)


class Status(IntEnum):
    """Why a per-topic value is (un)defined; OK means the value is a number."""

    OK = 0
    NO_ANSWERABLE = 1
    UNJUDGED_ORACLE = 2
    UNJUDGED_CONTEXT = 3


REASONS: dict[Status, str | None] = {
    Status.OK: None,
    Status.NO_ANSWERABLE: "no answerable sub-question (A is empty)",
    Status.UNJUDGED_ORACLE: "answerability hinges on unjudged ratings of required passages",
    Status.UNJUDGED_CONTEXT: "coverage hinges on unjudged ratings of context passages",
}


def check_tau(tau: float) -> float:
    """A threshold within the vocabulary's bounds: at 0 every unrelated passage would 'answer'."""
    if not MIN_TAU <= tau <= MAX_TAU:
        raise ValueError(f"tau must lie in [{MIN_TAU:g}, {MAX_TAU:g}], got {tau}")
    return float(tau)


@dataclass(frozen=True)
class AnswerableSet:
    """Answerable sub-questions per topic, from the judged ratings of required passages."""

    mask: np.ndarray  # (T, Q) bool
    undetermined: np.ndarray  # (T, Q) bool: not answerable yet, but a required rating is NaN
    missing: np.ndarray  # (T,) int: NaN (required passage, question) cells that could add to A

    @property
    def size(self) -> np.ndarray:
        return self.mask.sum(axis=1)


def answerable_set(batch: RatingsBatch, tau: float = DEFAULT_TAU) -> AnswerableSet:
    """A = {i : max over required passages of r >= tau}, for every topic of the batch."""
    tau = check_tau(tau)
    cells = batch.required[:, :, None] & batch.question_valid[:, None, :]
    with np.errstate(invalid="ignore"):
        answers = cells & (batch.ratings >= tau)
    mask = answers.any(axis=1)
    unjudged = cells & np.isnan(batch.ratings) & ~mask[:, None, :]
    return AnswerableSet(mask, unjudged.any(axis=1), unjudged.sum(axis=(1, 2)))


@dataclass(frozen=True)
class Coverage:
    """Coverage of one topic; ``value`` is None exactly when ``reason`` says why."""

    value: float | None
    covered: int
    answerable: int
    missing: int
    undetermined: int
    lower: float | None
    upper: float | None
    reason: str | None


@dataclass(frozen=True)
class CoverageBatch:
    """Per-topic coverage arrays (T,); NaN where undefined, with ``status`` saying why."""

    value: np.ndarray
    covered: np.ndarray  # answerable questions answered by a judged rating >= tau
    answerable: np.ndarray  # |A|
    missing: np.ndarray  # NaN (context passage, answerable question) triples
    undetermined: np.ndarray  # answerable questions not covered whose context has a NaN
    lower: np.ndarray
    upper: np.ndarray
    status: np.ndarray

    def topic(self, t: int) -> Coverage:
        def number(x: float) -> float | None:
            return None if np.isnan(x) else float(x)

        return Coverage(
            value=number(self.value[t]),
            covered=int(self.covered[t]),
            answerable=int(self.answerable[t]),
            missing=int(self.missing[t]),
            undetermined=int(self.undetermined[t]),
            lower=number(self.lower[t]),
            upper=number(self.upper[t]),
            reason=REASONS[Status(int(self.status[t]))],
        )


def coverage_from_ratings(
    ratings: np.ndarray,
    answerable: AnswerableSet,
    tau: float = DEFAULT_TAU,
    missing_as_zero: bool = False,
) -> CoverageBatch:
    """Coverage of contexts given their gathered (T, K, Q) ratings (K may be 0)."""
    tau = check_tau(tau)
    mask = answerable.mask
    if ratings.ndim != 3 or ratings.shape[0] != mask.shape[0] or ratings.shape[2] != mask.shape[1]:
        raise ValueError(f"ratings must have shape ({mask.shape[0]}, K, {mask.shape[1]})")
    with np.errstate(invalid="ignore"):
        hits = (ratings >= tau).any(axis=1) & mask
    unjudged = np.isnan(ratings) & mask[:, None, :]
    undetermined_q = unjudged.any(axis=1) & ~hits
    covered = hits.sum(axis=1)
    n_answerable = mask.sum(axis=1)
    undetermined = undetermined_q.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(n_answerable > 0, covered / np.maximum(n_answerable, 1), np.nan)
        upper = np.where(
            n_answerable > 0, (covered + undetermined) / np.maximum(n_answerable, 1), np.nan
        )
    status = np.full(mask.shape[0], Status.OK, dtype=np.int8)
    if not missing_as_zero:
        status[undetermined > 0] = Status.UNJUDGED_CONTEXT
    status[n_answerable == 0] = Status.NO_ANSWERABLE
    if not missing_as_zero:
        status[answerable.undetermined.any(axis=1)] = Status.UNJUDGED_ORACLE
    value = np.where(status == Status.OK, lower, np.nan)
    return CoverageBatch(
        value=value,
        covered=covered,
        answerable=n_answerable,
        missing=unjudged.sum(axis=(1, 2)),
        undetermined=undetermined,
        lower=lower,
        upper=upper,
        status=status,
    )


def context_coverage(
    batch: RatingsBatch,
    contexts: np.ndarray,
    answerable: AnswerableSet,
    tau: float = DEFAULT_TAU,
    missing_as_zero: bool = False,
) -> CoverageBatch:
    """Coverage of each topic's context ((T, K) row indices, ``OUTSIDE`` = rating 0)."""
    return coverage_from_ratings(context_ratings(batch, contexts), answerable, tau, missing_as_zero)


def report_coverage(
    report_ratings: np.ndarray,
    answerable: AnswerableSet,
    tau: float = DEFAULT_TAU,
    missing_as_zero: bool = False,
) -> CoverageBatch:
    """Coverage of generated reports: (T, Q) ratings, each report judged as one passage."""
    report_ratings = np.asarray(report_ratings, dtype=np.float64)
    if report_ratings.shape != answerable.mask.shape:
        raise ValueError(
            f"report ratings must have shape {answerable.mask.shape}, got {report_ratings.shape}"
        )
    check_rating_range(report_ratings, "report ratings")
    return coverage_from_ratings(report_ratings[:, None, :], answerable, tau, missing_as_zero)


def missing_judgments(
    batch: RatingsBatch, contexts: np.ndarray, answerable: AnswerableSet
) -> list[list[tuple[int, int]]]:
    """Per topic, the sorted (passage row, question) pairs of a context still to be judged."""
    gathered = context_ratings(batch, contexts)
    unjudged = np.isnan(gathered) & answerable.mask[:, None, :]
    out: list[list[tuple[int, int]]] = [[] for _ in range(batch.n_topics)]
    for t, pos, q in np.argwhere(unjudged):
        out[t].append((int(contexts[t, pos]), int(q)))
    return [sorted(set(pairs)) for pairs in out]


def topic_coverage(
    topic: TopicRatings,
    context: Sequence[int],
    tau: float = DEFAULT_TAU,
    missing_as_zero: bool = False,
) -> Coverage:
    """Coverage of one context of one topic, A taken from the topic's required passages."""
    batch = RatingsBatch.single(topic)
    answerable = answerable_set(batch, tau)
    contexts = stack_contexts([context])
    return context_coverage(batch, contexts, answerable, tau, missing_as_zero).topic(0)


def topic_report_coverage(
    topic: TopicRatings,
    report_ratings: Sequence[float],
    tau: float = DEFAULT_TAU,
    missing_as_zero: bool = False,
) -> Coverage:
    """Coverage of one generated report (its rating per sub-question, NaN = unjudged)."""
    answerable = answerable_set(RatingsBatch.single(topic), tau)
    ratings = np.asarray(report_ratings, dtype=np.float64)[None, :]
    return report_coverage(ratings, answerable, tau, missing_as_zero).topic(0)


__all__ = [
    "OUTSIDE",
    "AnswerableSet",
    "Coverage",
    "CoverageBatch",
    "Status",
    "answerable_set",
    "context_coverage",
    "coverage_from_ratings",
    "missing_judgments",
    "report_coverage",
    "topic_coverage",
    "topic_report_coverage",
]
