"""Relevance ranking metrics for comparison with coverage (METHODS section 1): nDCG@k, MAP,
Recall@k and R-Prec against passage qrels, computed by ir_measures' pytrec_eval backend.

Runs are ranked lists (real rank order). trec_eval re-sorts by score and breaks ties by doc
id, so each list is given strictly decreasing scores to keep its order. A topic in the run
with an empty list scores 0 (it retrieved nothing); a topic with no relevant passage in the
qrels has undefined values (None, with the reason), where trec_eval would report 0. Topics
absent from the run are not evaluated: pass them with an empty list to score them as 0.
nDCG uses the qrels grades as gains; MAP, Recall and R-Prec count a passage relevant when its
grade is >= ``min_relevance``.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import ir_measures
from ir_measures import AP, R, Rprec, nDCG

NO_RELEVANT = "no relevant passage in the qrels"


@dataclass(frozen=True)
class RankingScores:
    """Per-topic values by measure name (None = undefined) and the reasons for undefined ones."""

    per_topic: dict[str, dict[str, float | None]]
    reasons: dict[str, str] = field(default_factory=dict)

    def mean(self, measure: str) -> tuple[float | None, int]:
        """Mean over topics where the measure is defined, and how many topics that is."""
        values = [v[measure] for v in self.per_topic.values() if v.get(measure) is not None]
        return (sum(values) / len(values) if values else None), len(values)


def measure_names(cutoffs: Sequence[int]) -> list[str]:
    return [f"nDCG@{k}" for k in cutoffs] + ["MAP"] + [f"R@{k}" for k in cutoffs] + ["R-Prec"]


def _scored_run(run: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    scored: dict[str, dict[str, float]] = {}
    for qid, ranking in run.items():
        ranking = list(ranking)
        if len(set(ranking)) != len(ranking):
            dup = next(pid for pid in ranking if ranking.count(pid) > 1)
            raise ValueError(f"run topic {qid!r} lists passage {dup!r} more than once")
        scored[qid] = {pid: float(len(ranking) - i) for i, pid in enumerate(ranking)}
    return scored


def ranking_metrics(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Sequence[str]],
    cutoffs: Sequence[int] = (10,),
    min_relevance: int = 1,
) -> RankingScores:
    """nDCG@k, MAP (per-topic AP), R@k and R-Prec for every topic of ``run``."""
    if any(k < 1 for k in cutoffs):
        raise ValueError(f"cutoffs must be >= 1, got {list(cutoffs)}")
    if min_relevance < 1:
        raise ValueError(f"min_relevance must be >= 1, got {min_relevance}")
    by_measure = {}
    for k in cutoffs:
        by_measure[nDCG @ k] = f"nDCG@{k}"
        by_measure[R(rel=min_relevance) @ k] = f"R@{k}"
    by_measure[AP(rel=min_relevance)] = "MAP"
    by_measure[Rprec(rel=min_relevance)] = "R-Prec"
    names = measure_names(cutoffs)

    per_topic: dict[str, dict[str, float | None]] = {}
    reasons: dict[str, str] = {}
    evaluated: dict[str, dict[str, int]] = {}
    for qid in run:
        grades = {pid: int(g) for pid, g in qrels.get(qid, {}).items()}
        if not any(g >= min_relevance for g in grades.values()):
            per_topic[qid] = dict.fromkeys(names)
            reasons[qid] = NO_RELEVANT
        else:
            per_topic[qid] = dict.fromkeys(names, 0.0)
            evaluated[qid] = grades
    if evaluated:
        scored = {qid: docs for qid, docs in _scored_run(run).items() if qid in evaluated}
        for metric in ir_measures.pytrec_eval.iter_calc(list(by_measure), evaluated, scored):
            per_topic[metric.query_id][by_measure[metric.measure]] = float(metric.value)
    else:
        _scored_run(run)  # still reject malformed runs
    return RankingScores(per_topic=per_topic, reasons=reasons)
