"""A small QA collection for LLM-retEval tests: gold passages, a run, one sub-question each."""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.models import Collection, Passage, PassageQrel, Run, RunEntry, SubQuestion, Topic

QUESTIONS = [
    ("q1", "Which planet has the shortest year?", ["Mercury"]),
    ("q2", "Which gas do plants take in?", ["carbon dioxide", "CO2"]),
    ("q3", "Who wrote Frankenstein?", ["Mary Shelley"]),
]


@dataclass
class RetEvalData:
    collection: Collection
    run: Run
    topics: dict[str, Topic]
    passages: dict[str, Passage]


def make_reteval_collection(name: str = "qa-reteval") -> RetEvalData:
    """q1 ranks its gold passage first; q2 ranks a distractor first and gold second; q3 ranks
    an unlabelled passage with the answer first and its gold passage third."""
    collection = Collection.objects.create(name=name, kind=Collection.Kind.QA)
    run = Run.objects.create(collection=collection, name="bm25")
    texts = {
        "q1-gold": "Mercury completes one orbit in 88 days, the shortest year.",
        "q1-x": "Jupiter takes twelve years to orbit the Sun.",
        "q2-x": "Nitrogen makes up most of the air.",
        "q2-gold": "Plants absorb carbon dioxide through their stomata.",
        "q3-other": "Mary Shelley wrote the novel Frankenstein in 1818.",
        "q3-x": "Dracula was written by Bram Stoker.",
        "q3-gold": "Frankenstein is a novel by Mary Shelley, published in 1818.",
    }
    passages = {
        key: Passage.objects.create(collection=collection, external_id=key, text=text)
        for key, text in texts.items()
    }
    rankings = {
        "q1": ["q1-gold", "q1-x"],
        "q2": ["q2-x", "q2-gold"],
        "q3": ["q3-other", "q3-x", "q3-gold"],
    }
    topics = {}
    for qid, question, answers in QUESTIONS:
        topic = Topic.objects.create(
            collection=collection, external_id=qid, request=question, gold_answers=answers
        )
        SubQuestion.objects.create(topic=topic, position=0, text=question)
        PassageQrel.objects.create(
            topic=topic, passage=passages[f"{qid}-gold"], grade=1, source="qa_gold"
        )
        for rank, key in enumerate(rankings[qid], start=1):
            RunEntry.objects.create(
                run=run, topic=topic, passage=passages[key], rank=rank, score=10.0 - rank
            )
        topics[qid] = topic
    return RetEvalData(collection, run, topics, passages)
