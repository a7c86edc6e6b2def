"""Builders for review tests: a collection where two people and a machine disagree."""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.models import Collection, Judge, Judgment, Passage, Topic
from tests.crux_app.factories import make_collection, make_judge, make_passages, make_topic

# Ratings of (passage index) by judge: p0 everyone agrees; p1 ann 2 / bob 4 / gpt 4;
# p2 ann 1 / bob 5 / gpt 1; p3 ann 3 / bob 0 / gpt 3.
RATINGS = {
    "user:ann": [2, 2, 1, 3],
    "user:bob": [2, 4, 5, 0],
    "gpt": [2, 4, 1, 3],
}
RATIONALES = {"user:ann": "first span", "user:bob": "second span", "gpt": "third span"}


@dataclass
class ReviewData:
    collection: Collection
    topic: Topic
    passages: list[Passage]
    judges: dict[str, Judge]


def disagreement_collection(name: str = "rv") -> ReviewData:
    collection = make_collection(name)
    topic = make_topic(collection, "t1", n_subquestions=1)
    passages = make_passages(collection, "t1", 4)
    subquestion = topic.subquestions.get()
    judges = {
        "user:ann": make_judge("user:ann", kind=Judge.Kind.HUMAN),
        "user:bob": make_judge("user:bob", kind=Judge.Kind.HUMAN),
        "gpt": make_judge("gpt"),
    }
    Judgment.objects.bulk_create(
        Judgment(
            judge=judges[name],
            topic=topic,
            subquestion=subquestion,
            passage=p,
            task=Judgment.Task.PASSAGE_RATING,
            rating=ratings[i],
            rationale=f"{RATIONALES[name]} #{i}",
        )
        for name, ratings in RATINGS.items()
        for i, p in enumerate(passages)
    )
    return ReviewData(collection, topic, passages, judges)
