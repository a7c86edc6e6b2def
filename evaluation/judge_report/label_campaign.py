"""Where to spend the next human labels: choose topics or items from the judge report's two
judges and create a passage-rating campaign with them (``annotation.campaigns.from_items``).

The candidates are the passage-rating items the report's figures rest on: each topic's real
sub-questions x the passages (with text) in any run's top k. The reference judge (the report's
human side) has labelled some of them already:

- unit ``topics``: the candidates are the topics the reference has no labels on; a chosen
  topic brings all its items (a topic score needs them all). This is what PPI needs: more
  labelled topics.
- unit ``items``: the candidates are the items the reference has not rated; n of them. Items
  sharpen item-level agreement, but a partly labelled topic is not a labelled topic for PPI.

Strategies (``method/label_selection.py``): ``random``, ``stratified`` (topics by quantile of
the predicting judge's mean rating, items by its rating) and ``uncertain`` (measure: entropy of
the predicting judge's rating distribution, disagreement between judges A and B, or ratings
near tau; a topic's uncertainty is its items' mean).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import AbstractBaseUser

from annotation.campaigns.from_items import create_campaign_from_items
from annotation.models import Campaign
from annotation.task_types.names import PASSAGE_RATING
from crux_app.inputs import EvaluationInputError
from crux_app.models import Collection, Judge, Judgment, Passage, SubQuestion
from crux_app.query_arrays import int_columns
from evaluation.judge_report.campaign_notes import SOURCE
from evaluation.judge_report.method import label_selection as choose
from evaluation.judge_report.report import JudgeSide, pick_reference
from evaluation.judge_report.scores import collection_axes, judge_grades, judge_kind, top_k

UNITS = ("topics", "items")
N_STRATA = 4  # quantile strata of topics


@dataclass(frozen=True)
class LabelPlan:
    judge_a: str
    judge_b: str
    k: int
    unit: str
    strategy: str
    n: int
    seed: int = 0
    measure: str = "disagreement"
    tau: int = 3


@dataclass(frozen=True)
class Choice:
    keys: list[tuple[int, int, int]]  # (topic, sub-question, passage) items to label
    topics: list[int]  # topic ids the items belong to
    candidates: int  # topics or items there were to choose from
    keeps_ppi_unbiased: bool
    inclusion: float | None  # the chosen candidates' inclusion probability, where known

    def record(self, plan: LabelPlan, reference: str) -> dict[str, object]:
        return {
            "source": SOURCE,
            "judges": [plan.judge_a, plan.judge_b],
            "reference": reference,
            "k": plan.k,
            "unit": plan.unit,
            "strategy": plan.strategy,
            "measure": plan.measure if plan.strategy == "uncertain" else None,
            "tau": plan.tau,
            "n": plan.n,
            "candidates": self.candidates,
            "keeps_ppi_unbiased": self.keeps_ppi_unbiased,
        }


def pool_items(collection: Collection, k: int) -> np.ndarray:
    """(items, 3) (topic, sub-question, passage) ids: real sub-questions x the top-k passages
    with text of any run, by topic, sub-question, passage id."""
    axes = collection_axes(collection)
    pools: dict[int, set[int]] = {}
    for per_topic in top_k(axes, k).values():
        for topic, docs in per_topic.items():
            pools.setdefault(int(topic), set()).update(int(p) for p in docs)
    readable = set(
        Passage.objects.filter(collection=collection, has_text=True).values_list("pk", flat=True)
    )
    rows = SubQuestion.objects.filter(topic__collection=collection, is_placeholder=False)
    items = [
        (topic, sq, passage)
        for sq, topic in rows.order_by("topic_id", "position").values_list("pk", "topic_id")
        for passage in sorted(pools.get(topic, set()) & readable)
    ]
    return np.array(items, dtype=np.int64).reshape(-1, 3)


def _ratings(collection: Collection, name: str, items: np.ndarray) -> np.ndarray:
    """Each item's rating by the named judge (NaN: none)."""
    judge = Judge.objects.filter(name=name).first()
    out = np.full(len(items), np.nan)
    if judge is None or not len(items):
        return out
    rows = int_columns(
        Judgment.objects.filter(
            judge=judge, topic__collection=collection, task=Judgment.Task.PASSAGE_RATING
        ).exclude(rating__isnull=True),
        ["subquestion_id", "passage_id", "rating"],
    )
    found = {(sq, p): r for sq, p, r in rows.tolist()}
    for i, (_, sq, p) in enumerate(items.tolist()):
        out[i] = found.get((sq, p), np.nan)
    return out


def _entropy(collection: Collection, name: str, items: np.ndarray) -> np.ndarray:
    rows = Judgment.objects.filter(
        judge__name=name,
        topic__collection=collection,
        task=Judgment.Task.PASSAGE_RATING,
        distribution__isnull=False,
    ).values_list("subquestion_id", "passage_id", "distribution")
    found = {(sq, p): d for sq, p, d in rows}
    if not found:
        raise EvaluationInputError(
            f"judge {name!r} stored no rating distributions (distribution mode): choose "
            "another uncertainty measure"
        )
    width = max(len(d) for d in found.values())
    table = np.full((len(items), width), np.nan)
    for i, (_, sq, p) in enumerate(items.tolist()):
        d = found.get((sq, p))
        if d is not None and len(d) == width:
            table[i] = d
    return choose.rating_entropy(table)


def _uncertainty(
    collection: Collection, plan: LabelPlan, predictor: str, items: np.ndarray
) -> np.ndarray:
    if plan.measure == "entropy":
        return _entropy(collection, predictor, items)
    if plan.measure == "disagreement":
        a = _ratings(collection, plan.judge_a, items)
        b = _ratings(collection, plan.judge_b, items)
        return choose.disagreement(a, b)
    return choose.near_tau(_ratings(collection, predictor, items), plan.tau)


def _topic_means(topic_of: np.ndarray, values: np.ndarray, topics: np.ndarray) -> np.ndarray:
    out = np.full(len(topics), np.nan)
    for i, topic in enumerate(topics.tolist()):
        mine = values[topic_of == topic]
        mine = mine[np.isfinite(mine)]
        if mine.size:
            out[i] = mine.mean()
    return out


def choose_items(collection: Collection, plan: LabelPlan) -> tuple[Choice, str]:
    """The items to label and the reference judge's name."""
    if plan.unit not in UNITS or plan.strategy not in choose.STRATEGIES:
        raise EvaluationInputError(f"unknown unit {plan.unit!r} or strategy {plan.strategy!r}")
    if plan.measure not in choose.MEASURES:
        raise EvaluationInputError(f"unknown uncertainty measure {plan.measure!r}")
    sides = [JudgeSide(n, judge_kind(n)) for n in (plan.judge_a, plan.judge_b)]
    reference = sides[0] if pick_reference(*sides) == "a" else sides[1]
    predictor = sides[1] if reference is sides[0] else sides[0]
    items = pool_items(collection, plan.k)
    if not len(items):
        raise EvaluationInputError(
            "no passage-rating items to label: the collection needs topics with sub-questions "
            f"and passages with text in the runs' top {plan.k}"
        )
    labelled_items = np.isfinite(_ratings(collection, reference.name, items))
    grades = judge_grades(collection, reference.name)
    labelled_topics = set(grades[:, 0].tolist())
    if plan.unit == "topics":
        candidates = np.array(sorted(set(items[:, 0].tolist()) - labelled_topics), np.int64)
        topic_of = items[:, 0]
    else:
        candidates = np.flatnonzero(~labelled_items)
    if not len(candidates):
        raise EvaluationInputError(
            f"{reference.name} has labelled every candidate {plan.unit[:-1]} already"
        )
    inclusion = None
    if plan.strategy == "random":
        picked = choose.uniform(len(candidates), plan.n, plan.seed)
        inclusion = len(picked) / len(candidates)
    elif plan.strategy == "stratified":
        ratings = _ratings(collection, predictor.name, items)
        if plan.unit == "topics":
            strata = choose.quantile_strata(_topic_means(topic_of, ratings, candidates), N_STRATA)
        else:
            strata = np.where(np.isfinite(ratings[candidates]), ratings[candidates], -1)
        picked, probability = choose.stratified(strata, plan.n, plan.seed)
        inclusion = float(probability[picked].mean()) if len(picked) else None
    else:
        uncertainty = _uncertainty(collection, plan, predictor.name, items)
        if plan.unit == "topics":
            uncertainty = _topic_means(topic_of, uncertainty, candidates)
        else:
            uncertainty = uncertainty[candidates]
        picked = choose.least_certain(uncertainty, plan.n, plan.seed)
    if plan.unit == "topics":
        chosen = np.isin(items[:, 0], candidates[picked])
    else:
        chosen = np.zeros(len(items), bool)
        chosen[candidates[picked]] = True
    keys = [tuple(row) for row in items[chosen].tolist()]
    choice = Choice(
        keys=keys,
        topics=sorted({k[0] for k in keys}),
        candidates=len(candidates),
        keeps_ppi_unbiased=choose.KEEPS_PPI_UNBIASED[plan.strategy] and plan.unit == "topics",
        inclusion=inclusion,
    )
    return choice, reference.name


def create_label_campaign(
    collection: Collection,
    plan: LabelPlan,
    name: str,
    overlap: int,
    user: AbstractBaseUser | None = None,
    invited: Iterable[AbstractBaseUser] = (),
) -> Campaign:
    """Choose the items and create the campaign (one transaction, in the annotation service)."""
    choice, reference = choose_items(collection, plan)
    campaign = Campaign(
        name=name,
        collection=collection,
        task_type=PASSAGE_RATING,
        overlap=overlap,
        created_by=user,
    )
    return create_campaign_from_items(
        campaign, choice.keys, choice.record(plan, reference), seed=plan.seed, invited=invited
    )
