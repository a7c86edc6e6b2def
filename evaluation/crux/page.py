"""The disagreements page's rows, built from stored ratings and an evaluation: where metrics or
judges disagree. Per-topic rank flips between coverage and nDCG / Recall, and (sub-question,
passage) cells an LLM judge and a human judge put on two sides of tau.

Topic rows: for every topic, the runs ordered by coverage and by nDCG@k (and Recall@k) are
compared. A flip is a pair of runs the two metrics order oppositely (both defined, neither a
tie); its size is |delta coverage| + |delta other metric|. A topic's impact is its largest flip,
so the first rows are where the metrics disagree most. Kendall tau per topic comes from
``metric_agreement`` (undefined, with its reason, for fewer than two runs or a constant metric).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from crux_app.inputs import JudgeInfo
from crux_app.models import Collection, Judge, Judgment, Passage, SubQuestion
from evaluation.crux.evaluate import Evaluation
from evaluation.shared.metric_agreement import TauResult, kendall_tau

COMPARED = ("ndcg", "recall")
PASSAGE_RATING = Judgment.Task.PASSAGE_RATING


@dataclass(frozen=True)
class Flip:
    metric: str  # "ndcg" or "recall"
    ahead_by_coverage: str  # the run coverage puts first
    ahead_by_metric: str
    size: float


@dataclass(frozen=True)
class TopicDisagreement:
    topic_id: int
    topic: str
    taus: dict[str, TauResult]  # "ndcg" / "recall" -> tau vs coverage across runs
    flips: list[Flip]  # largest first

    @property
    def impact(self) -> float:
        return self.flips[0].size if self.flips else 0.0


def _flips(coverage: dict[str, float], other: dict[str, float], metric: str) -> list[Flip]:
    out = []
    for a, b in combinations(sorted(coverage.keys() & other.keys()), 2):
        d_cov, d_other = coverage[a] - coverage[b], other[a] - other[b]
        if d_cov * d_other < 0:
            first, second = (a, b) if d_cov > 0 else (b, a)
            out.append(Flip(metric, first, second, abs(d_cov) + abs(d_other)))
    return out


def topic_disagreements(evaluation: Evaluation) -> list[TopicDisagreement]:
    """Topics whose coverage ranking of the runs flips against nDCG or Recall, by impact."""

    def defined(metric: str, t: int) -> dict[str, float]:
        values = {run.name: float(run.values[metric][t]) for run in evaluation.runs}
        return {name: v for name, v in values.items() if v == v}  # drops NaN

    out = []
    for t, (topic_id, name) in enumerate(
        zip(evaluation.topic_ids.tolist(), evaluation.topic_names, strict=True)
    ):
        coverage = defined("coverage", t)
        taus, flips = {}, []
        for metric in COMPARED:
            other = defined(metric, t)
            taus[metric] = kendall_tau(coverage, other, ("coverage", metric))
            flips += _flips(coverage, other, metric)
        if flips:
            flips.sort(key=lambda f: (-f.size, f.metric, f.ahead_by_coverage))
            out.append(TopicDisagreement(topic_id, name, taus, flips))
    return sorted(out, key=lambda d: (-d.impact, -len(d.flips), d.topic))


@dataclass(frozen=True)
class JudgeDisagreement:
    topic_id: int
    topic: str
    position: int
    question: str
    passage: str
    llm_judge: str
    llm_rating: int
    human_judge: str
    human_rating: int

    @property
    def difference(self) -> int:
        return abs(self.llm_rating - self.human_rating)


def judge_disagreements(
    collection: Collection, tau: float, judge: JudgeInfo | None = None
) -> list[JudgeDisagreement]:
    """Cells an LLM judge and a human rate on two sides of tau, largest |difference| first.

    The LLM side is ``judge`` when it is an LLM judge, else every LLM judge.
    """
    human = list(
        Judgment.objects.filter(
            topic__collection=collection,
            task=PASSAGE_RATING,
            judge__kind=Judge.Kind.HUMAN,
            rating__isnull=False,
            passage__isnull=False,
        )
        .order_by()
        .values_list("topic_id", "subquestion_id", "passage_id", "judge_id", "rating")
    )
    if not human:
        return []
    llm_rows = Judgment.objects.filter(
        task=PASSAGE_RATING,
        judge__kind=Judge.Kind.LLM,
        rating__isnull=False,
        subquestion_id__in={sq for _, sq, _, _, _ in human},
    )
    if judge is not None and judge.kind == Judge.Kind.LLM:
        llm_rows = llm_rows.filter(judge_id=judge.id)
    llm: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for sq, passage, judge_id, rating in llm_rows.order_by().values_list(
        "subquestion_id", "passage_id", "judge_id", "rating"
    ):
        llm.setdefault((sq, passage), []).append((judge_id, rating))
    pairs = [
        (topic, sq, passage, llm_judge, llm_rating, human_judge, human_rating)
        for topic, sq, passage, human_judge, human_rating in human
        for llm_judge, llm_rating in llm.get((sq, passage), [])
        if (llm_rating >= tau) != (human_rating >= tau)
    ]
    judges = dict(
        Judge.objects.filter(pk__in={p[3] for p in pairs} | {p[5] for p in pairs}).values_list(
            "pk", "name"
        )
    )
    questions = {
        pk: (topic_name, position, text)
        for pk, topic_name, position, text in SubQuestion.objects.filter(
            pk__in={p[1] for p in pairs}
        ).values_list("pk", "topic__external_id", "position", "text")
    }
    passages = dict(
        Passage.objects.filter(pk__in={p[2] for p in pairs}).values_list("pk", "external_id")
    )
    rows = [
        JudgeDisagreement(
            topic_id=topic,
            topic=questions[sq][0],
            position=questions[sq][1],
            question=questions[sq][2],
            passage=passages[passage],
            llm_judge=judges[llm_judge],
            llm_rating=llm_rating,
            human_judge=judges[human_judge],
            human_rating=human_rating,
        )
        for topic, sq, passage, llm_judge, llm_rating, human_judge, human_rating in pairs
    ]
    return sorted(rows, key=lambda r: (-r.difference, r.topic, r.position, r.passage))
