"""A small collection judged by an LLM on every topic and by a person on the first four.

Topics t0..t5, two sub-questions each, passages ``t<i>:0#0..3``. A judge rates sub-question 0
with the grade below and sub-question 1 with 0, so a passage's relevance grade (its highest
rating) is the grade below. The person labels t0..t3 only. Runs rank the same passage indexes on
every topic: ``best`` 0 1 2 3, ``mid`` 2 0 1 3, ``worst`` 3 2 1 0, ``xtra`` 1 3 0 2 (four runs:
the fewest a run-ranking agreement is measured on).
"""

from __future__ import annotations

from dataclasses import dataclass

import ir_measures
import numpy as np
from ir_measures import nDCG

from crux_app.models import Collection, Judge, Passage, Run, RunEntry, Topic
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_topic,
    rate_passages,
)

LLM_GRADES = [[5, 4, 1, 2], [5, 3, 2, 0], [4, 5, 0, 1], [3, 3, 2, 1], [5, 1, 4, 0], [2, 4, 3, 0]]
HUMAN_GRADES = [[1, 0, 4, 0], [3, 2, 4, 0], [4, 3, 0, 1], [0, 1, 3, 2]]
RUNS = {"best": [0, 1, 2, 3], "mid": [2, 0, 1, 3], "worst": [3, 2, 1, 0], "xtra": [1, 3, 0, 2]}


@dataclass
class TwoJudges:
    collection: Collection
    topics: list[Topic]
    passages: list[list[Passage]]
    llm: Judge
    human: Judge


def make_two_judges(name: str = "twojudges") -> TwoJudges:
    collection = make_collection(name)
    topics = [make_topic(collection, f"t{i}", n_subquestions=2) for i in range(6)]
    passages = [make_passages(collection, t.external_id, 4) for t in topics]
    llm = make_judge("llm-judge")
    human = make_judge("people", kind=Judge.Kind.HUMAN)
    for i, topic in enumerate(topics):
        grades = LLM_GRADES[i]
        rate_passages(
            llm, topic, passages[i], rating=lambda pos, j, g=grades: g[j] if pos == 0 else 0
        )
        if i < len(HUMAN_GRADES):
            grades = HUMAN_GRADES[i]
            rate_passages(
                human, topic, passages[i], rating=lambda pos, j, g=grades: g[j] if pos == 0 else 0
            )
    for run_name, order in RUNS.items():
        run = Run.objects.create(collection=collection, name=run_name)
        RunEntry.objects.bulk_create(
            RunEntry(
                run=run,
                topic=topic,
                passage=passages[i][j],
                rank=position + 1,
                score=10.0 - position,
                line_order=position,
            )
            for i, topic in enumerate(topics)
            for position, j in enumerate(order)
        )
    return TwoJudges(collection, topics, passages, llm, human)


def expected_ndcg(grades: list[list[int]], k: int) -> np.ndarray:
    """(runs in name order, topics) nDCG@k straight from ir_measures on the grades above."""
    qrels = {f"q{i}": {f"d{j}": g for j, g in enumerate(row)} for i, row in enumerate(grades)}
    out = np.zeros((len(RUNS), len(grades)))
    for r, name in enumerate(sorted(RUNS)):
        run = {q: {f"d{j}": float(10 - pos) for pos, j in enumerate(RUNS[name])} for q in qrels}
        for metric in ir_measures.iter_calc([nDCG @ k], qrels, run):
            out[r, int(metric.query_id[1:])] = metric.value
    return out
