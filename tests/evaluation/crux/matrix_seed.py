"""Topics for the coverage-matrix tests: a small hand-made one whose marks are worked out by
hand, and a large synthetic one (many passages, several judges) for the speed test and bench."""

from __future__ import annotations

from dataclasses import dataclass

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
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_qrels,
    make_run,
    make_topic,
)


def seed_large_topic(
    name: str = "matrix-bench",
    *,
    n_subquestions: int = 15,
    n_passages: int = 300,
    n_llm_judges: int = 2,
    n_human_ratings: int = 400,
    seed: int = 7,
) -> Topic:
    """One topic: every LLM judge rates every (sub-question, passage); a human rates a sample;
    a run ranks all passages; a tenth of the passages are required."""
    rng = np.random.default_rng(seed)
    collection: Collection = make_collection(name)
    topic = make_topic(collection, f"{name}-t1", n_subquestions=n_subquestions)
    passages = Passage.objects.bulk_create(
        Passage(collection=collection, external_id=f"{name}:doc{i}#0", text=f"Passage {i}. " * 30)
        for i in range(n_passages)
    )
    run = Run.objects.create(collection=collection, name="bm25")
    RunEntry.objects.bulk_create(
        RunEntry(run=run, topic=topic, passage=p, rank=i + 1, score=-i, line_order=i)
        for i, p in enumerate(passages)
    )
    PassageQrel.objects.bulk_create(
        PassageQrel(topic=topic, passage=p, grade=3 if i % 10 == 0 else 2)
        for i, p in enumerate(passages)
        if i % 5 == 0
    )
    subquestions = list(topic.subquestions.all())
    judges = [
        Judge.objects.create(
            name=f"{name}-llm{j}", kind="llm", model_id=f"m{j}", prompt_version="v1"
        )
        for j in range(n_llm_judges)
    ]
    ratings = rng.integers(0, 6, size=(n_llm_judges, n_subquestions, n_passages))
    Judgment.objects.bulk_create(
        (
            Judgment(
                judge=judge,
                topic=topic,
                subquestion=sq,
                passage=p,
                task=Judgment.Task.PASSAGE_RATING,
                rating=int(ratings[j, q, i]),
                raw_output=str(ratings[j, q, i]),
            )
            for j, judge in enumerate(judges)
            for q, sq in enumerate(subquestions)
            for i, p in enumerate(passages)
        ),
        batch_size=5000,
    )
    human = Judge.objects.create(name=f"{name}-human", kind="human")
    cells = rng.choice(n_subquestions * n_passages, size=n_human_ratings, replace=False)
    Judgment.objects.bulk_create(
        Judgment(
            judge=human,
            topic=topic,
            subquestion=subquestions[cell // n_passages],
            passage=passages[cell % n_passages],
            task=Judgment.Task.PASSAGE_RATING,
            rating=int(rng.integers(0, 6)),
        )
        for cell in cells.tolist()
    )
    return topic


@dataclass
class HandMadeTopic:
    """A 4-position topic (position 2 a placeholder) whose marks are worked out by hand.

    Run bm25 gives every passage rank 1; its line order is p3, p1, p0, p4. Qrels: source
    "imported" (4 rows, preferred) p0=3, p4=3, p1=2, p3=1; source "auto" p1=3, p2=1.
    llm-a ratings (position: p0 p1 p3 p4): 0: 4 5 0 1; 1: 4 2 3 0; 3: 1 4 unparsable 2.
    With k=2 the top-k is (p3, p1). At tau 3 positions 0 and 1 are answerable and covered;
    at tau 4 both are answerable and only 0 is covered; 3 is never answerable.
    annotator1 (human): (0, p1)=1 crosses tau, (1, p0)=3 differs at tau 3 and crosses at 4,
    (0, p2)=2 human only, (3, p1)=4 agrees. llm-b rates (0, p0)=3 and (0, p3)=3.
    """

    topic: Topic
    subquestions: dict[int, SubQuestion]  # by position
    passages: list[Passage]  # p0..p5; p5 is in the collection but not in the topic's pool
    bm25: Run
    dense: Run
    llm_a: Judge
    llm_b: Judge
    human: Judge


LLM_A = {
    0: {0: 4, 1: 5, 3: 0, 4: 1},
    1: {0: 4, 1: 2, 3: 3, 4: 0},
    3: {0: 1, 1: 4, 3: None, 4: 2},
}
HUMAN = {(0, 1): 1, (1, 0): 3, (0, 2): 2, (3, 1): 4}


def make_matrix_topic() -> HandMadeTopic:
    collection = make_collection("matrix")
    topic = make_topic(collection, "m1", n_subquestions=4, placeholders=[2])
    sqs = {sq.position: sq for sq in topic.subquestions.all()}
    passages = make_passages(collection, "m1", 6)
    p = passages
    bm25 = Run.objects.create(collection=collection, name="bm25")
    RunEntry.objects.bulk_create(
        RunEntry(run=bm25, topic=topic, passage=p[i], rank=1, score=1.0, line_order=line)
        for line, i in enumerate([3, 1, 0, 4])
    )
    dense = make_run(collection, "dense", topic, [p[4], p[0]])
    make_qrels(topic, {p[0]: 3, p[4]: 3, p[1]: 2, p[3]: 1}, source="imported")
    make_qrels(topic, {p[1]: 3, p[2]: 1}, source="auto")
    llm_a, llm_b = make_judge("llm-a"), make_judge("llm-b")
    human = make_judge("annotator1", kind=Judge.Kind.HUMAN)
    judgments = [
        Judgment(
            judge=llm_a,
            topic=topic,
            subquestion=sqs[pos],
            passage=p[i],
            task=Judgment.Task.PASSAGE_RATING,
            rating=rating,
            raw_output=f"Rating: {rating}" if rating is not None else "I cannot tell.",
            prompt=f"RUBRIC PROMPT for position {pos} and passage p{i}",
        )
        for pos, row in LLM_A.items()
        for i, rating in row.items()
    ]
    # A stray imported judgment of the placeholder position: never a matrix row.
    judgments.append(_rating(llm_a, topic, sqs[2], p[0], 5))
    judgments += [_rating(llm_b, topic, sqs[0], p[i], 3) for i in (0, 3)]
    judgments += [_rating(human, topic, sqs[pos], p[i], r) for (pos, i), r in HUMAN.items()]
    Judgment.objects.bulk_create(judgments)
    return HandMadeTopic(topic, sqs, passages, bm25, dense, llm_a, llm_b, human)


def _rating(judge: Judge, topic: Topic, sq: SubQuestion, passage: Passage, rating: int) -> Judgment:
    return Judgment(
        judge=judge,
        topic=topic,
        subquestion=sq,
        passage=passage,
        task=Judgment.Task.PASSAGE_RATING,
        rating=rating,
    )
