"""A collection judged by a degenerate judge and by an informative one, worked out by hand.

Collection ``flat``, topic ``t1``: sub-questions 0..2, passages p0..p9 (``t1:0#i``); qrels
p0 3, p1 3, p2 3 (required). Runs: ``r1`` ranks p0..p4, ``r2`` ranks p5..p9 then p0.

- ``flat-llm`` gives 4 to 29 of the 30 items (97%) and 5 to (sub-question 0, p9): every
  answerable sub-question is covered by any context, so at k=2 both runs score coverage 1.
- ``spread-llm`` gives (position + index) % 6: at tau 3 sub-questions 1 and 2 are answerable;
  at k=2 r1 covers one of them (coverage 0.5) and r2 none (0.0).
- ``broken-llm`` rates p0 and p1 only: 4 of its 6 outputs are unparsable.
- ``annotator`` (human) rates every item as ``spread-llm`` does.
- ``dist-llm@v1+dist`` rates p0..p1 in distribution mode (see ``DISTRIBUTIONS``).
"""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.models import Collection, Judge, Judgment, Passage, Run, Topic
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_qrels,
    make_run,
    make_topic,
    rate_passages,
)

FLAT, SPREAD, BROKEN, DIST, HUMAN = "flat-llm", "spread-llm", "broken-llm", "dist-llm", "annotator"
# (position, passage index) -> P(rating 0..5) of dist-llm; its rating is the most likely one.
DISTRIBUTIONS = {
    (0, 0): [0.0, 0.0, 0.1, 0.2, 0.3, 0.4],  # expected 4.0
    (1, 0): [0.5, 0.5, 0.0, 0.0, 0.0, 0.0],  # expected 0.5
    (2, 0): [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],  # expected 0.0, entropy 0
    (0, 1): [1 / 6] * 6,  # expected 2.5, entropy 1
}


def flat_rating(position: int, index: int) -> int:
    return 5 if (position, index) == (0, 9) else 4


def spread_rating(position: int, index: int) -> int:
    return (position + index) % 6


@dataclass
class FlatCollection:
    collection: Collection
    topic: Topic
    passages: list[Passage]
    r1: Run
    r2: Run
    judges: dict[str, Judge]


def make_flat_collection(name: str = "flat") -> FlatCollection:
    collection = make_collection(name)
    topic = make_topic(collection, "t1", n_subquestions=3)
    passages = make_passages(collection, "t1", 10)
    make_qrels(topic, {p: 3 for p in passages[:3]})
    r1 = make_run(collection, "r1", topic, passages[:5])
    r2 = make_run(collection, "r2", topic, [*passages[5:], passages[0]])
    judges = {
        FLAT: make_judge(FLAT),
        SPREAD: make_judge(SPREAD),
        BROKEN: make_judge(BROKEN),
        HUMAN: make_judge(HUMAN, kind=Judge.Kind.HUMAN),
    }
    rate_passages(judges[FLAT], topic, passages, flat_rating)
    rate_passages(judges[SPREAD], topic, passages, spread_rating)
    rate_passages(judges[HUMAN], topic, passages, spread_rating)
    rate_passages(judges[BROKEN], topic, passages[:2], lambda pos, i: None if pos < 2 else 1)
    Judgment.objects.filter(judge=judges[BROKEN], rating__isnull=True).update(raw_output="well")
    judges[DIST] = Judge.objects.create(
        name=DIST, kind=Judge.Kind.LLM, model_id="model/dist", prompt_version="v1+dist"
    )
    subquestions = {sq.position: sq for sq in topic.subquestions.all()}
    Judgment.objects.bulk_create(
        Judgment(
            judge=judges[DIST],
            topic=topic,
            subquestion=subquestions[position],
            passage=passages[index],
            task=Judgment.Task.PASSAGE_RATING,
            rating=max(range(6), key=lambda r, p=p: (p[r], -r)),
            distribution=p,
            raw_output="",
        )
        for (position, index), p in DISTRIBUTIONS.items()
    )
    return FlatCollection(collection, topic, passages, r1, r2, judges)
