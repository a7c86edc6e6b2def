"""A hand-made collection whose CRUX metrics are computed by hand in the evaluate tests.

Topic ``ta``: sub-questions q0, q1, q2 and a placeholder at position 3; passages p0..p4 plus
``x0`` (another topic's passage: no row, rating 0). Qrels (source "imported"): p0 3, p1 3,
p2 1, so O = {p0, p1}. LLM ratings (tau 3), rows q0 q1 q2:

    p0: 4 1 0      p1: 0 3 2      p2: 5 0 0      p3: 0 0 5      p4: unjudged (row by its id)

A = {q0, q1} (q2: best required rating 2). Topic ``tb``: q0, q1; b0 (required) 3 0, b1 0 4;
A = {q0}. Topic ``tc``: one question, c0 (required) rates 1: A is empty, coverage undefined.

Whitespace token counts: p0 4, p1 6, p2 10, p3 5, p4 8, x0 2, b0 3, b1 7, c0 1.
Runs: r1 = ta [p2, p4, p1, x0], tb [b1, b0], tc [c0]; r2 = ta [p0, p1, p3], tc [c0] (tb not
ranked); ``empty`` ranks nothing. A human judge rates ta p0 q0 = 1, p1 q1 = 2, p2 q0 = 4.
Reports (human, binary): r1 on ta answers q0 and q1; r2 on ta answers q0 and q2.
"""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.models import (
    Collection,
    GeneratedOutput,
    Judge,
    Judgment,
    Passage,
    Run,
    RunEntry,
    SubQuestion,
    Topic,
)
from tests.crux_app.factories import make_collection, make_judge, make_qrels, make_topic

TOKENS = {"p0": 4, "p1": 6, "p2": 10, "p3": 5, "p4": 8, "x0": 2, "b0": 3, "b1": 7, "c0": 1}
PASSAGE_TOPIC = {"p": "ta", "b": "tb", "c": "tc", "x": "other"}
LLM_RATINGS = {
    "ta": {"p0": [4, 1, 0], "p1": [0, 3, 2], "p2": [5, 0, 0], "p3": [0, 0, 5]},
    "tb": {"b0": [3, 0], "b1": [0, 4]},
    "tc": {"c0": [1]},
}
HUMAN_RATINGS = {("p0", 0): 1, ("p1", 1): 2, ("p2", 0): 4}
RUNS = {
    "r1": {"ta": ["p2", "p4", "p1", "x0"], "tb": ["b1", "b0"], "tc": ["c0"]},
    "r2": {"ta": ["p0", "p1", "p3"], "tc": ["c0"]},
    "empty": {},
}
REPORTS = {"r1": [1, 1, 0], "r2": [1, 0, 1]}


@dataclass
class HandCollection:
    collection: Collection
    topics: dict[str, Topic]
    passages: dict[str, Passage]
    llm: Judge
    human: Judge


def _passage(collection: Collection, name: str) -> Passage:
    topic = PASSAGE_TOPIC[name[0]]
    return Passage.objects.create(
        collection=collection,
        external_id=f"{topic}:0#{name[1:]}",
        text=" ".join(f"w{i}" for i in range(TOKENS[name])),
    )


def _rating(judge: Judge, subquestion: SubQuestion, passage: Passage, rating: int) -> Judgment:
    return Judgment(
        judge=judge,
        topic=subquestion.topic,
        subquestion=subquestion,
        passage=passage,
        task=Judgment.Task.PASSAGE_RATING,
        rating=rating,
    )


def make_hand_collection(name: str = "hand") -> HandCollection:
    collection = make_collection(name)
    topics = {
        "ta": make_topic(collection, "ta", n_subquestions=4, placeholders=[3]),
        "tb": make_topic(collection, "tb", n_subquestions=2),
        "tc": make_topic(collection, "tc", n_subquestions=1),
    }
    passages = {n: _passage(collection, n) for n in TOKENS}
    make_qrels(topics["ta"], {passages["p0"]: 3, passages["p1"]: 3, passages["p2"]: 1})
    make_qrels(topics["tb"], {passages["b0"]: 3})
    make_qrels(topics["tc"], {passages["c0"]: 3})
    llm = make_judge("llm-judge")
    human = make_judge("human-1", kind=Judge.Kind.HUMAN)
    sq = {
        (s.topic.external_id, s.position): s
        for s in SubQuestion.objects.filter(topic__collection=collection).select_related("topic")
    }
    Judgment.objects.bulk_create(
        [
            _rating(llm, sq[(topic_name, position)], passages[passage_name], rating)
            for topic_name, rows in LLM_RATINGS.items()
            for passage_name, ratings in rows.items()
            for position, rating in enumerate(ratings)
        ]
        + [
            _rating(human, sq[("ta", position)], passages[passage_name], rating)
            for (passage_name, position), rating in HUMAN_RATINGS.items()
        ]
    )
    for run_name, rankings in RUNS.items():
        run = Run.objects.create(collection=collection, name=run_name)
        RunEntry.objects.bulk_create(
            # Constant ranks, as in CRUX's released runs: the file line gives the order.
            RunEntry(run=run, topic=topics[t], passage=passages[p], rank=1, score=1.0, line_order=i)
            for t, ranked in rankings.items()
            for i, p in enumerate(ranked)
        )
    for system, answers in REPORTS.items():
        output = GeneratedOutput.objects.create(
            collection=collection,
            topic=topics["ta"],
            external_id=f"{system}_ta",
            system=system,
            text="A report.",
        )
        Judgment.objects.bulk_create(
            Judgment(
                judge=human,
                topic=topics["ta"],
                subquestion=sq[("ta", position)],
                output=output,
                task=Judgment.Task.REPORT_COVERAGE,
                rating=answer,
            )
            for position, answer in enumerate(answers)
        )
    return HandCollection(collection, topics, passages, llm, human)
