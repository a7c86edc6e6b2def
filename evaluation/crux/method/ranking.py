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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import ir_measures
import numpy as np
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


@dataclass(frozen=True)
class RankingArrays:
    """Per-topic (T,) nDCG@k, AP, R@k and R-Prec; NaN where the topic has no relevant passage
    (or no cutoff: k < 1)."""

    ndcg: np.ndarray
    ap: np.ndarray
    recall: np.ndarray
    rprec: np.ndarray


def _log2_ranks(n: int) -> np.ndarray:
    # math.log2, as trec_eval's C log2: the gains then round exactly as pytrec_eval's do.
    return np.array([math.log2(i + 2) for i in range(n)], dtype=np.float64)


def _sum_in_rank_order(terms: np.ndarray) -> np.ndarray:
    """Row sums added left to right, as trec_eval adds them (np.sum pairs them up, which can
    round differently in the last bit)."""
    if terms.shape[1] == 0:
        return np.zeros(terms.shape[0])
    return np.cumsum(terms, axis=1)[:, -1]


def ranking_arrays(
    ranked: np.ndarray, qrels: np.ndarray, k: np.ndarray, min_relevance: int = 1
) -> RankingArrays:
    """The ``ranking_metrics`` values of many topics at once, equal to pytrec_eval's bit for
    bit: ``ranked`` (T, L) holds the qrels grade of each ranked passage in rank order (0 for
    an unjudged passage and for padding after the end of a ranking), ``qrels`` (T, G) each
    topic's qrels grades (padded with 0), ``k`` (T,) the cutoff per topic. Gains are the
    positive grades; a grade >= ``min_relevance`` is relevant."""
    if min_relevance < 1:
        raise ValueError(f"min_relevance must be >= 1, got {min_relevance}")
    ranked = np.asarray(ranked, np.int64)
    qrels = np.asarray(qrels, np.int64)
    k = np.asarray(k, np.int64)
    n_topics, depth = ranked.shape
    relevant = ranked >= min_relevance
    n_relevant = (qrels >= min_relevance).sum(axis=1)
    defined = (n_relevant > 0) & (k >= 1)
    position = np.arange(depth)[None, :]
    within = position < k[:, None]

    log2 = _log2_ranks(max(depth, qrels.shape[1]))
    gains = np.where((ranked > 0) & within, ranked / log2[:depth], 0.0)
    ideal_grades = -np.sort(-np.where(qrels > 0, qrels, 0), axis=1)
    ideal_within = np.arange(qrels.shape[1])[None, :] < k[:, None]
    ideal_gains = np.where(ideal_within, ideal_grades / log2[: qrels.shape[1]], 0.0)
    dcg, ideal = _sum_in_rank_order(gains), _sum_in_rank_order(ideal_gains)

    found = np.cumsum(relevant, axis=1)
    precision = np.where(relevant, found / (position + 1.0), 0.0)
    denominator = np.where(defined, n_relevant, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return RankingArrays(
            ndcg=np.where(defined, dcg / np.where(ideal > 0, ideal, 1.0), np.nan),
            ap=np.where(defined, _sum_in_rank_order(precision) / denominator, np.nan),
            recall=np.where(defined, (relevant & within).sum(axis=1) / denominator, np.nan),
            rprec=np.where(
                defined,
                (relevant & (position < n_relevant[:, None])).sum(axis=1) / denominator,
                np.nan,
            ),
        )
