"""CRUX required-passage selection and redundancy grades (METHODS section 1), and their
agreement with imported qrels grades.

The authors' greedy procedure (crux ``create_ranking_data.py``), vectorised over topics:
S = [r >= tau]; a question is answerable when some candidate passage answers it. While an
answerable question is uncovered, score every passage by (#uncovered questions it answers)
+ 0.1 * [it rates > 0 on an uncovered question], take the first argmax, and add it as
required (grade 3) when it covers something new. As in the authors' code, "uncovered" for the
0.1 bonus includes unanswerable questions (never covered); placeholders are no questions.
(A passage answering an uncovered question also rates > 0 on it, so while one exists the
bonus never lifts a passage above it: in effect ties on the count go to the first row.)
The authors' loop never ends when the argmax covers nothing new (possible only when the
questions to cover are not answerable from the candidates); ours stops and flags the topic.
Then m = max rating vector of the required passages: a non-required passage whose every
rating is strictly below m is fully redundant (grade 1), any other partially redundant (2).

Unjudged ratings (NaN) never answer and never count as strictly below m (so they cannot make
a passage fully redundant); they are counted in ``missing``. ``missing_as_zero=True`` reads
them as 0 instead.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import confusion_matrix

from evaluation.crux.method.coverage import DEFAULT_TAU, check_tau
from evaluation.crux.method.crux_ratings import RatingsBatch, TopicRatings

REQUIRED, PARTIALLY_REDUNDANT, FULLY_REDUNDANT, UNGRADED = 3, 2, 1, 0
NO_REQUIRED = "no answerable sub-question: no required passage, no redundancy grades"
STALLED = "stopped: a question to cover is answered by no candidate passage"


@dataclass(frozen=True)
class RequiredSubset:
    """One topic: required rows in selection order and a grade per passage row."""

    required: list[int]
    grades: np.ndarray | None  # (P,) 3/2/1; None when there is no required passage
    answerable: np.ndarray  # (Q,) bool
    max_vector: np.ndarray | None  # (Q,) m; None when there is no required passage
    missing: int
    reason: str | None


@dataclass(frozen=True)
class RequiredSubsetBatch:
    """Per-topic arrays; ``grades`` 0 marks padding rows and topics without required rows."""

    grades: np.ndarray  # (T, P) int8
    selection_step: np.ndarray  # (T, P) step at which a row was selected, -1 if never
    answerable: np.ndarray  # (T, Q) bool
    max_vector: np.ndarray  # (T, Q) float, NaN for topics without required rows
    missing: np.ndarray  # (T,) NaN cells among real passages x real questions
    stalled: np.ndarray  # (T,) bool

    def topic(self, t: int, n_passages: int | None = None) -> RequiredSubset:
        steps = self.selection_step[t]
        picked = np.flatnonzero(steps >= 0)
        required = [int(i) for i in picked[np.argsort(steps[picked])]]
        rows = slice(None) if n_passages is None else slice(0, n_passages)
        reason = STALLED if self.stalled[t] else (None if required else NO_REQUIRED)
        return RequiredSubset(
            required=required,
            grades=self.grades[t, rows].copy() if required else None,
            answerable=self.answerable[t].copy(),
            max_vector=self.max_vector[t].copy() if required else None,
            missing=int(self.missing[t]),
            reason=reason,
        )


def select_required(
    ratings: np.ndarray,
    passage_valid: np.ndarray,
    question_valid: np.ndarray,
    tau: float = DEFAULT_TAU,
    missing_as_zero: bool = False,
    targets: np.ndarray | None = None,
) -> RequiredSubsetBatch:
    """Greedy required subset and redundancy grades for (T, P, Q) candidate ratings.

    ``targets`` (T, Q) are the questions to cover; by default the answerable ones.
    """
    tau = check_tau(tau)
    t, p, q = ratings.shape
    cells = passage_valid[:, :, None] & question_valid[:, None, :]
    unjudged = np.isnan(ratings) & cells
    r = np.where(unjudged, 0.0, ratings) if missing_as_zero else ratings
    with np.errstate(invalid="ignore"):
        answers = (r >= tau) & cells
        positive = (r > 0) & cells
    answerable = answers.any(axis=1)
    targets = answerable if targets is None else np.asarray(targets, bool) & question_valid
    covered = np.zeros((t, q), bool)
    step_of = np.full((t, p), -1, dtype=np.int64)
    stalled = np.zeros(t, bool)
    rows = np.arange(t)
    # Each step covers at least one new question or stops the topic: at most q steps.
    for step in range(q):
        active = (targets & ~covered).any(axis=1) & ~stalled
        if not active.any():
            break
        uncovered = (question_valid & ~covered)[:, None, :]
        # 10 * count + bonus orders exactly like the authors' count + 0.1 * bonus.
        score = 10 * (answers & uncovered).sum(axis=2) + (positive & uncovered).any(axis=2)
        score = np.where(passage_valid, score, -1)
        pick = np.argmax(score, axis=1)
        picked_answers = answers[rows, pick]
        new = (picked_answers & ~covered).any(axis=1) & active
        stalled |= active & ~new
        step_of[rows[new], pick[new]] = step
        covered[new] |= picked_answers[new]
    required = step_of >= 0
    has_required = required.any(axis=1)
    judged_required = required[:, :, None] & question_valid[:, None, :] & ~np.isnan(r)
    m = np.where(judged_required, r, -np.inf).max(axis=1, initial=-np.inf)
    with np.errstate(invalid="ignore"):
        below = (r < m[:, None, :]) | ~question_valid[:, None, :]
    fully = below.all(axis=2) & passage_valid & ~required
    grades = np.where(
        required, REQUIRED, np.where(fully, FULLY_REDUNDANT, PARTIALLY_REDUNDANT)
    ).astype(np.int8)
    grades[~passage_valid | ~has_required[:, None]] = UNGRADED
    m = np.where(has_required[:, None] & question_valid, m, np.nan)
    return RequiredSubsetBatch(
        grades=grades,
        selection_step=step_of,
        answerable=answerable,
        max_vector=m,
        missing=unjudged.sum(axis=(1, 2)),
        stalled=stalled,
    )


def select_required_batch(
    batch: RatingsBatch, tau: float = DEFAULT_TAU, missing_as_zero: bool = False
) -> RequiredSubsetBatch:
    """Run the greedy on every topic's passages (the batch's ``required`` is not read)."""
    return select_required(
        batch.ratings, batch.passage_valid, batch.question_valid, tau, missing_as_zero
    )


def topic_required_subset(
    topic: TopicRatings, tau: float = DEFAULT_TAU, missing_as_zero: bool = False
) -> RequiredSubset:
    """Required subset and grades of one topic's candidate (relevant) passages."""
    batch = RatingsBatch.single(topic)
    result = select_required_batch(batch, tau, missing_as_zero)
    return result.topic(0, topic.ratings.shape[0])


@dataclass(frozen=True)
class GradeAgreement:
    """Computed vs imported grades over the passages both grade."""

    labels: tuple[int, ...]
    confusion: np.ndarray  # rows = imported grade, columns = computed grade, in label order
    n: int
    exact_match: float | None  # share of shared passages with equal grades; None when n = 0
    only_computed: int
    only_imported: int


def grade_agreement(
    computed: Mapping[str, int],
    imported: Mapping[str, int],
    labels: Sequence[int] = (FULLY_REDUNDANT, PARTIALLY_REDUNDANT, REQUIRED),
) -> GradeAgreement:
    """Confusion counts and exact-match share between two passage-id -> grade maps."""
    shared = sorted(computed.keys() & imported.keys())
    seen = {int(computed[k]) for k in shared} | {int(imported[k]) for k in shared}
    all_labels = tuple(sorted(set(labels) | seen))
    y_imported = [int(imported[k]) for k in shared]
    y_computed = [int(computed[k]) for k in shared]
    if shared:
        matrix = confusion_matrix(y_imported, y_computed, labels=list(all_labels))
    else:
        matrix = np.zeros((len(all_labels), len(all_labels)), dtype=np.int64)
    n = len(shared)
    return GradeAgreement(
        labels=all_labels,
        confusion=matrix,
        n=n,
        exact_match=float(np.trace(matrix)) / n if n else None,
        only_computed=len(computed.keys() - imported.keys()),
        only_imported=len(imported.keys() - computed.keys()),
    )
