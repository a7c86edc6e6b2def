"""The topic coverage matrix: one judge's 0-5 ratings of sub-questions x passages, with a run's
top-k, the qrel grades, answerable and covered sub-questions, and where humans disagree.

Everything comes from a fixed handful of ``values_list`` queries turned into numpy arrays, so a
topic with hundreds of passages and several judges costs the same few queries. Answerability
and coverage come from ``evaluation.crux.method.coverage``; nothing here re-derives a metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from crux_app.judge_choice import default_judge
from crux_app.judge_kinds import kind_label
from crux_app.models import Judge, Run, Topic
from crux_app.read_parameters import TAU, K
from crux_app.vocabulary import nearly_constant
from evaluation.crux.matrix.stored import (
    UNPARSABLE,
    StoredTopic,
    external_ids,
    judgment_array,
    preferred_grades,
    rating_histograms,
    rating_rows,
    run_order,
    subquestion_rows,
)
from evaluation.crux.method.coverage import Coverage, answerable_set, context_coverage
from evaluation.crux.method.crux_ratings import (
    RatingsBatch,
    TopicRatings,
    context_ratings,
    stack_contexts,
)
from evaluation.crux.method.required_subset import select_required
from evaluation.crux.oracle import ORACLE_POLICY

# The read side's declared tau (a whole one: the matrix offers whole taus) and k.
DEFAULT_TAU = int(TAU.default)
DEFAULT_K = K.default
MAX_K = K.maximum
# Cell codes besides the ratings 0..5 (and UNPARSABLE, -1).
NOT_JUDGED = -2
REQUIRED_GRADE = 3


class Disagreement(IntEnum):
    """How the humans' ratings of a cell relate to the selected judge's (the worst wins)."""

    NONE = 0
    HUMAN_ONLY = 1  # a human rated a cell the selected judge has no parsed rating for
    DIFFERS = 2  # another rating, same side of tau
    CROSSES_TAU = 3  # a rating on the other side of tau


@dataclass(frozen=True)
class JudgeChoice:
    id: int
    name: str
    kind: str
    n_judgments: int
    prompt_version: str = ""
    n_topics: int = 1  # a topic's judges all rated its one topic
    degenerate: bool = False  # its ratings of the topic are nearly constant (vocabulary)

    @property
    def kind_name(self) -> str:
        """The kind as pages list it (crux_app.judge_kinds)."""
        return kind_label(self.kind, self.prompt_version)


@dataclass(frozen=True)
class RunChoice:
    id: int
    name: str


@dataclass(frozen=True)
class MatrixOptions:
    """What the selectors offer for a topic, and the defaults."""

    judges: list[JudgeChoice]
    runs: list[RunChoice]

    @property
    def default_judge(self) -> JudgeChoice | None:
        """The topic's default judge (``crux_app.judge_choice.default_judge``)."""
        return default_judge(self.judges)

    def preferred_judge(self, judge_ids: Sequence[int | None] = ()) -> JudgeChoice | None:
        """The first of ``judge_ids`` that rated the topic (remembered), else the default."""
        found = (self.judge(pk) for pk in judge_ids if pk is not None)
        return next((j for j in found if j is not None), None) or self.default_judge

    @property
    def default_run(self) -> RunChoice | None:
        return self.runs[0] if self.runs else None

    def judge(self, judge_id: int | None) -> JudgeChoice | None:
        return next((j for j in self.judges if j.id == judge_id), None)

    def run(self, run_id: int | None) -> RunChoice | None:
        return next((r for r in self.runs if r.id == run_id), None)


def matrix_options(topic: Topic, ratings: np.ndarray | None = None) -> MatrixOptions:
    """Judges that rated the topic's passages, and runs that rank passages for it
    (``ratings``: the topic's ``rating_rows``, when already read for the matrix)."""
    if ratings is None:
        ratings = rating_rows(topic)
    # Each judge's count of the topic's passage-rating judgments: counted from the rows the
    # matrix reads anyway, instead of a join and GROUP BY over the judgments table.
    ids, counts = np.unique(ratings[:, 0], return_counts=True)
    n_judgments = dict(zip(ids.tolist(), counts.tolist(), strict=True))
    flat = {pk for pk, tally in rating_histograms(ratings).items() if nearly_constant(tally)}
    judges = [
        JudgeChoice(pk, name, kind, n_judgments[pk], version, degenerate=pk in flat)
        for pk, name, kind, version in Judge.objects.filter(pk__in=list(n_judgments))
        .order_by("name", "pk")
        .values_list("pk", "name", "kind", "prompt_version")
    ]
    runs = [
        RunChoice(pk, name)
        for pk, name in Run.objects.filter(entries__topic=topic)
        .distinct()
        .order_by("name")
        .values_list("pk", "name")
    ]
    return MatrixOptions(judges, runs)


@dataclass(frozen=True)
class MatrixRow:
    subquestion_id: int
    position: int
    text: str
    answerable: bool | None  # None when the topic has no oracle (required) passage
    undetermined: bool  # not answerable yet, but a required passage's rating is missing
    covered: bool  # answerable and rated >= tau by a passage of the run's top-k


@dataclass(frozen=True)
class MatrixColumn:
    passage_id: int
    external_id: str
    group: str  # "topk", "judged" or "required": the three column blocks, in this order
    run_position: int | None  # 1-based position in the selected run, in (rank, line) order
    grade: int | None  # qrel grade: 3 required, 2 partially, 1 fully redundant
    grade_source: str | None


@dataclass(frozen=True)
class TopicMatrix:
    topic: Topic
    judge: JudgeChoice | None
    run: RunChoice | None
    tau: int
    k: int
    rows: list[MatrixRow]
    columns: list[MatrixColumn]
    codes: np.ndarray  # (Q, P) int8: rating 0..5, UNPARSABLE or NOT_JUDGED
    disagreement: np.ndarray  # (Q, P) int8 Disagreement
    human_ratings: dict[tuple[int, int], list[tuple[str, int]]] = field(default_factory=dict)
    coverage: Coverage | None = None  # of the run's top-k; None without a run or an oracle
    n_topk: int = 0
    judges: list[JudgeChoice] = field(default_factory=list)  # every judge of the topic
    # (J, Q, P) int8: each judge's code of each cell, judges in ``judges`` order (the hover).
    judge_codes: np.ndarray | None = None
    # The topic has no qrels: its oracle is the greedy required subset of the judge's
    # ratings, as ``evaluate`` and the leaderboard compute it (ORACLE_POLICY).
    oracle_computed: bool = False

    @property
    def oracle_policy(self) -> str:
        return ORACLE_POLICY

    @property
    def has_oracle(self) -> bool:
        return self.oracle_computed or any(c.grade == REQUIRED_GRADE for c in self.columns)

    @property
    def n_answerable(self) -> int:
        return sum(1 for r in self.rows if r.answerable)

    @property
    def n_covered(self) -> int:
        return sum(1 for r in self.rows if r.covered)

    @property
    def n_not_judged(self) -> int:
        return int((self.codes == NOT_JUDGED).sum())

    @property
    def n_unparsable(self) -> int:
        return int((self.codes == UNPARSABLE).sum())

    @property
    def n_disagreements(self) -> int:
        return int((self.disagreement >= Disagreement.DIFFERS).sum())


def build_matrix(
    topic: Topic,
    options: MatrixOptions,
    judge: JudgeChoice | None,
    run: RunChoice | None,
    tau: int = DEFAULT_TAU,
    k: int = DEFAULT_K,
    stored: StoredTopic | None = None,
) -> TopicMatrix:
    """The matrix of ``judge``'s ratings on the topic, columns led by ``run``'s top-k
    (``stored``: the topic's rows, loaded once by ``load_stored`` for several runs or cached
    by ``topic_cache``)."""
    if stored is None:
        subquestions = subquestion_rows(topic)
        ranked = run_order(topic, run.id if run is not None else None)
        grades = preferred_grades(topic)
        judged = judgment_array(topic)
        external = None
    else:
        subquestions, grades, judged = stored.subquestions, stored.grades, stored.judged
        ranked = stored.run_orders.get(run.id, []) if run is not None else []
        external = stored.external_ids
    columns = _columns(ranked, k, np.unique(judged[:, 2]).tolist(), grades, external)

    row_of = _index_of(np.array([sq[0] for sq in subquestions], dtype=np.int64), judged[:, 1])
    col_of = _index_of(np.array([c.passage_id for c in columns], dtype=np.int64), judged[:, 2])
    placed = (row_of >= 0) & (col_of >= 0)
    judged, row_of, col_of = judged[placed], row_of[placed], col_of[placed]

    codes = np.full((len(subquestions), len(columns)), NOT_JUDGED, dtype=np.int8)
    if judge is not None:
        mine = judged[:, 0] == judge.id
        codes[row_of[mine], col_of[mine]] = judged[mine, 3]
    disagreement, human_ratings = _disagreements(codes, judged, row_of, col_of, options, judge, tau)
    judge_codes = _judge_codes(codes.shape, judged, row_of, col_of, options)
    n_topk = sum(1 for c in columns if c.group == "topk")
    required = np.array([c.grade == REQUIRED_GRADE for c in columns], dtype=bool)
    oracle_computed = all(c.grade is None for c in columns)  # no qrels: as oracle_arrays
    if oracle_computed:
        required = computed_oracle(codes, tau)
    answerable, undetermined, covered, coverage = _answerability(codes, required, n_topk, run, tau)
    rows = [
        MatrixRow(
            subquestion_id=pk,
            position=position,
            text=text,
            answerable=None if answerable is None else bool(answerable[i]),
            undetermined=bool(undetermined[i]) if undetermined is not None else False,
            covered=bool(covered[i]) if covered is not None else False,
        )
        for i, (pk, position, text) in enumerate(subquestions)
    ]
    return TopicMatrix(
        topic=topic,
        judge=judge,
        run=run,
        tau=tau,
        k=k,
        rows=rows,
        columns=columns,
        codes=codes,
        disagreement=disagreement,
        human_ratings=human_ratings,
        coverage=coverage,
        n_topk=n_topk,
        judges=list(options.judges),
        judge_codes=judge_codes,
        oracle_computed=oracle_computed and bool(required.any()),
    )


def _columns(
    ranked: list[int],
    k: int,
    judged_ids: list[int],
    grades: dict[int, tuple[int, str]],
    external: dict[int, str] | None = None,
) -> list[MatrixColumn]:
    """Run top-k in rank order, then the other judged passages, then unjudged required ones
    (``external``: passage id -> external id, when already loaded)."""
    position = {pid: i + 1 for i, pid in enumerate(ranked)}
    topk = ranked[:k]
    shown = set(topk)
    others = [pid for pid in judged_ids if pid not in shown]
    shown.update(others)
    required = [pid for pid, (g, _) in grades.items() if g == REQUIRED_GRADE and pid not in shown]
    if external is None:
        external = external_ids([*topk, *others, *required])

    def grade_key(pid: int) -> int:
        return -grades[pid][0] if pid in grades else 0

    others.sort(key=lambda pid: (position.get(pid, len(ranked) + 1), grade_key(pid), external[pid]))
    required.sort(key=lambda pid: external[pid])
    blocks = (("topk", topk), ("judged", others), ("required", required))
    return [
        MatrixColumn(
            passage_id=pid,
            external_id=external[pid],
            group=group,
            run_position=position.get(pid),
            grade=grades[pid][0] if pid in grades else None,
            grade_source=grades[pid][1] if pid in grades else None,
        )
        for group, ids in blocks
        for pid in ids
    ]


def _index_of(ids: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Index of each key in ``ids`` (unique), -1 where a key is absent."""
    if ids.size == 0:
        return np.full(keys.shape, -1, dtype=np.int64)
    order = np.argsort(ids)
    where = np.clip(np.searchsorted(ids[order], keys), 0, ids.size - 1)
    return np.where(ids[order][where] == keys, order[where], -1)


def _judge_codes(
    shape: tuple[int, ...],
    judged: np.ndarray,
    row_of: np.ndarray,
    col_of: np.ndarray,
    options: MatrixOptions,
) -> np.ndarray:
    """(J, Q, P) codes of every judge of the options, NOT_JUDGED where a judge has none."""
    ids = np.array([j.id for j in options.judges], dtype=np.int64)
    out = np.full((len(ids), *shape), NOT_JUDGED, dtype=np.int8)
    which = _index_of(ids, judged[:, 0])
    known = which >= 0
    out[which[known], row_of[known], col_of[known]] = judged[known, 3]
    return out


def _disagreements(
    codes: np.ndarray,
    judged: np.ndarray,
    row_of: np.ndarray,
    col_of: np.ndarray,
    options: MatrixOptions,
    judge: JudgeChoice | None,
    tau: int,
) -> tuple[np.ndarray, dict[tuple[int, int], list[tuple[str, int]]]]:
    """Per cell, how the humans' parsed ratings differ from the selected judge's."""
    out = np.zeros(codes.shape, dtype=np.int8)
    humans = {j.id: j.name for j in options.judges if j.kind == Judge.Kind.HUMAN}
    humans.pop(judge.id if judge else None, None)
    pick = np.isin(judged[:, 0], list(humans)) & (judged[:, 3] >= 0)
    rows, cols, ratings = row_of[pick], col_of[pick], judged[pick, 3]
    mine = codes[rows, cols].astype(np.int64)
    level = np.where(
        mine < 0,
        Disagreement.HUMAN_ONLY,
        np.where(
            (mine >= tau) != (ratings >= tau),
            Disagreement.CROSSES_TAU,
            np.where(mine != ratings, Disagreement.DIFFERS, Disagreement.NONE),
        ),
    )
    np.maximum.at(out, (rows, cols), level.astype(np.int8))
    by_cell: dict[tuple[int, int], list[tuple[str, int]]] = {}
    for judge_id, r, c, rating in zip(judged[pick, 0], rows, cols, ratings, strict=True):
        by_cell.setdefault((int(r), int(c)), []).append((humans[int(judge_id)], int(rating)))
    return out, by_cell


def computed_oracle(codes: np.ndarray, tau: int) -> np.ndarray:
    """The greedy required subset over the judge's (Q, P) ratings: the oracle of a topic
    without qrels, as ``evaluation.crux.oracle.oracle_arrays`` computes it."""
    ratings = np.where(codes >= 0, codes, np.nan).T[None]  # (1, P, Q)
    subset = select_required(
        ratings, ~np.isnan(ratings).all(axis=2), np.ones((1, codes.shape[0]), bool), tau
    )
    return subset.selection_step[0] >= 0


def _answerability(
    codes: np.ndarray, required: np.ndarray, n_topk: int, run: RunChoice | None, tau: int
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None, Coverage | None]:
    """(answerable, undetermined, covered) per row and the top-k coverage; None without an
    oracle set (answerability is undefined then) and covered/coverage None without a run."""
    if not required.any():
        return None, None, None, None
    ratings = np.where(codes >= 0, codes, np.nan).T  # (P, Q), NaN = no parsed rating
    batch = RatingsBatch.single(TopicRatings(ratings, required=required))
    answerable = answerable_set(batch, tau)
    if run is None:
        return answerable.mask[0], answerable.undetermined[0], None, None
    contexts = stack_contexts([range(n_topk)])
    coverage = context_coverage(batch, contexts, answerable, tau).topic(0)
    # Per-question hits, the same test the coverage metric counts.
    with np.errstate(invalid="ignore"):
        covered = (context_ratings(batch, contexts)[0] >= tau).any(axis=0) & answerable.mask[0]
    return answerable.mask[0], answerable.undetermined[0], covered, coverage
