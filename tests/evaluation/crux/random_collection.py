"""A seeded random collection with every case the evaluation's array path must place right,
and a straightforward per-topic evaluation of it (plain ORM reads, one topic at a time, the
methods' single-topic functions and pytrec_eval) to hold the array path against.

Cases: topics with qrels in the chosen source and topics without (computed oracle), another
qrels source, a placeholder sub-question, unjudged and unparsable ratings, a rating filed
under another topic than its sub-question's, a passage of no topic that another judge rated
for a topic, passages of other topics in the runs, constant ranks ordered by file line, a
topic a run does not rank, a passage without text (density undefined).
"""

from __future__ import annotations

import math

import numpy as np

from crux_app.models import (
    Collection,
    Judge,
    Judgment,
    Passage,
    PassageQrel,
    Run,
    RunEntry,
    SubQuestion,
    Topic,
)
from evaluation.crux.method.alpha_ndcg import topic_alpha_ndcg
from evaluation.crux.method.coverage import topic_coverage
from evaluation.crux.method.crux_ratings import OUTSIDE, TopicRatings
from evaluation.crux.method.density import topic_density
from evaluation.crux.method.ranking import ranking_metrics
from evaluation.crux.method.required_subset import select_required
from tests.crux_app.factories import make_collection, make_judge, make_qrels, make_topic

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING
N_TOPICS = 6
PASSAGES_PER_TOPIC = 9


def make_random_collection(seed: int = 7, name: str = "random") -> Collection:
    rng = np.random.default_rng(seed)
    collection = make_collection(name)
    topics = [
        make_topic(
            collection, f"t{i}", n_subquestions=3 + i % 2, placeholders=[1] if i == 1 else []
        )
        for i in range(N_TOPICS)
    ]
    passages = {
        t.external_id: Passage.objects.bulk_create(
            Passage(
                collection=collection,
                external_id=f"{t.external_id}:d{j}#0",
                text=" ".join(["w"] * int(rng.integers(1, 30))) if (i, j) != (2, 3) else "",
                has_text=(i, j) != (2, 3),
            )
            for j in range(PASSAGES_PER_TOPIC)
        )
        for i, t in enumerate(topics)
    }
    strays = Passage.objects.bulk_create(
        Passage(collection=collection, external_id=f"x{j}", text="w w w") for j in range(3)
    )
    llm, human = make_judge("llm"), make_judge("person", kind=Judge.Kind.HUMAN)
    judgments = []
    for topic in topics:
        for sq in SubQuestion.objects.filter(topic=topic).order_by("position"):
            for passage in passages[topic.external_id][:-1]:  # the last one is never rated
                draw = rng.random()
                if draw < 0.1:
                    continue  # unjudged
                rating = (
                    None if draw < 0.15 else int(rng.choice(6, p=[0.3, 0.1, 0.1, 0.2, 0.15, 0.15]))
                )
                judgments.append(_judgment(llm, topic, sq, passage, rating))
    t0_sq = SubQuestion.objects.get(topic=topics[0], position=0)
    # Filed under t1 although its sub-question is t0's: a row of t1, never placed.
    judgments.append(_judgment(llm, topics[1], t0_sq, passages["t1"][-1], 5))
    # Another judge rated a passage of no topic for t2: a row of t2 once a run ranks it.
    judgments.append(_judgment(human, topics[2], _first_sq(topics[2]), strays[0], 4))
    Judgment.objects.bulk_create(judgments)
    for i, topic in enumerate(topics[:4]):  # t4 and t5: no qrels, the oracle is computed
        grades = {p: int(rng.integers(0, 4)) for p in passages[topic.external_id][:6]}
        grades[passages[topic.external_id][i % 3]] = 3
        make_qrels(topic, grades)
    make_qrels(topics[5], {passages["t5"][0]: 3}, source="other")
    for r, run_name in enumerate(["bm25", "dense"]):
        run = Run.objects.create(collection=collection, name=run_name)
        entries = []
        for i, topic in enumerate(topics):
            if run_name == "dense" and i == 5:
                continue  # dense does not rank t5
            pool = (
                passages[topic.external_id]
                + strays
                + passages[topics[(i + 1) % N_TOPICS].external_id][:2]
            )
            order = rng.permutation(len(pool))[: int(rng.integers(4, len(pool)))]
            for line, at in enumerate(order):
                # bm25 has real ranks; dense a constant rank, ordered by the file's lines.
                rank = line + 1 if r == 0 else 1
                entries.append(
                    RunEntry(
                        run=run,
                        topic=topic,
                        passage=pool[at],
                        rank=rank,
                        score=0.0,
                        line_order=line,
                    )
                )
        RunEntry.objects.bulk_create(entries)
    return collection


def _first_sq(topic: Topic) -> SubQuestion:
    return SubQuestion.objects.get(topic=topic, position=0)


def _judgment(judge, topic, subquestion, passage, rating) -> Judgment:
    return Judgment(
        judge=judge,
        topic=topic,
        subquestion=subquestion,
        passage=passage,
        task=PASSAGE_RATING,
        rating=rating,
    )


def reference_values(
    collection: Collection,
    judge: str,
    source: str,
    k: int | str,
    tau: float = 3.0,
    min_relevance: int = 1,
    missing_as_zero: bool = False,
    gamma: float = 0.5,
) -> dict[str, dict[str, dict[str, float]]]:
    """run -> topic -> metric -> value (NaN where undefined), one topic at a time."""
    judge_id = Judge.objects.get(name=judge).pk
    runs = list(Run.objects.filter(collection=collection).order_by("name"))
    out: dict[str, dict[str, dict[str, float]]] = {run.name: {} for run in runs}
    for topic in Topic.objects.filter(collection=collection).order_by("pk"):
        rankings = {
            run.name: [
                e.passage
                for e in RunEntry.objects.filter(run=run, topic=topic)
                .select_related("passage")
                .order_by("rank", "line_order")
            ]
            for run in runs
        }
        questions = list(SubQuestion.objects.filter(topic=topic).order_by("position"))
        mine = Judgment.objects.filter(judge_id=judge_id, topic=topic, task=PASSAGE_RATING)
        qrels = PassageQrel.objects.filter(topic=topic)
        rows = {j.passage_id for j in mine} | {q.passage_id for q in qrels}
        depth = None if k == "oracle" else k
        rated_by_anyone = set(
            Judgment.objects.filter(topic=topic, task=PASSAGE_RATING).values_list(
                "passage_id", flat=True
            )
        )
        for ranking in rankings.values():
            for passage in ranking[:depth]:
                if passage.pk in rated_by_anyone or passage.external_id.startswith(
                    f"{topic.external_id}:"
                ):
                    rows.add(passage.pk)
        rows_sorted = sorted(rows)
        row_of = {pk: i for i, pk in enumerate(rows_sorted)}
        column_of = {sq.pk: i for i, sq in enumerate(questions)}
        ratings = np.full((len(rows_sorted), len(questions)), np.nan)
        for j in mine:
            if j.subquestion_id in column_of and j.rating is not None:
                ratings[row_of[j.passage_id], column_of[j.subquestion_id]] = j.rating
        placeholder = np.array([sq.is_placeholder for sq in questions])
        chosen = {q.passage_id: q.grade for q in qrels if q.source == source}
        if chosen:
            required = np.array([chosen.get(pk) == 3 for pk in rows_sorted], bool)
            grades = {str(pk): g for pk, g in chosen.items()}
        else:
            subset = select_required(
                ratings[None],
                np.ones((1, len(rows_sorted)), bool),
                ~placeholder[None],
                tau,
                missing_as_zero,
            )
            required = subset.selection_step[0] >= 0
            judged = ~np.isnan(ratings).all(axis=1)
            grades = {
                str(pk): int(subset.grades[0, r])
                for r, pk in enumerate(rows_sorted)
                if judged[r] and subset.grades[0, r] > 0
            }
        topic_ratings = TopicRatings(ratings, required, placeholder)
        cutoff = int(required.sum()) if k == "oracle" else k
        oracle_tokens = _tokens([pk for pk, req in zip(rows_sorted, required, strict=True) if req])
        for run_name, ranking in rankings.items():
            top = ranking[:cutoff]
            context = [row_of.get(p.pk, OUTSIDE) for p in top]
            coverage = topic_coverage(topic_ratings, context, tau, missing_as_zero)
            values = {"coverage": _nan(coverage.value), "missing": float(coverage.missing)}
            undefined = {m: math.nan for m in ("alpha_ndcg", "ndcg", "map", "recall", "rprec")}
            values |= undefined
            if cutoff >= 1:
                values["alpha_ndcg"] = _nan(topic_alpha_ndcg(topic_ratings, context, cutoff, tau))
                scores = ranking_metrics(
                    {"q": grades}, {"q": [str(p.pk) for p in ranking]}, (cutoff,), min_relevance
                ).per_topic["q"]
                for metric, name in (
                    ("ndcg", f"nDCG@{cutoff}"),
                    ("map", "MAP"),
                    ("recall", f"R@{cutoff}"),
                    ("rprec", "R-Prec"),
                ):
                    values[metric] = _nan(scores[name])
            context_tokens = _tokens([p.pk for p in top])
            values["density"] = values["density_norm"] = math.nan
            if not math.isnan(context_tokens) and not math.isnan(oracle_tokens):
                found = topic_density(
                    coverage.covered if coverage.value is not None else None,
                    coverage.answerable,
                    int(context_tokens),
                    int(oracle_tokens),
                    gamma,
                )
                values["density"], values["density_norm"] = _nan(found.raw), _nan(found.normalised)
            out[run_name][topic.external_id] = values
    return out


def _nan(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _tokens(passage_ids: list[int]) -> float:
    """Whitespace tokens of the passages' texts; NaN if one has no text."""
    total = 0
    for passage in Passage.objects.filter(pk__in=passage_ids):
        if not passage.has_text:
            return math.nan
        total += len(passage.text.split())
    return float(total)
