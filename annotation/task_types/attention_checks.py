"""Synthetic attention-check items: an item of the task's own shape whose text says what to
answer, with the answer it expects.

Plain Python. The checks look like ordinary items in the workspace (same layout, same keys);
only their text gives them away, which is the point: an annotator who answers without reading
fails them.
"""

import random

from annotation.task_types.names import FAILURE_CATEGORIES
from annotation.task_types.registry import AttentionCheck
from annotation.task_types.registry import task_type as task_type_entry

INTRO = "This item is an attention check, included to make sure every item is read."


def passage_rating_check(rng: random.Random, n: int) -> AttentionCheck:
    rating = rng.randrange(6)
    passage = (
        f"{INTRO} Whatever the question asks, please give this passage the rating {rating} "
        "and submit it without selecting a rationale."
    )
    payload = {
        "topic": f"attention-{n}",
        "request": "Attention check",
        "question": "How well does this passage answer the question it asks you to follow?",
        "position": 0,
        "passage_id": f"attention-{n}",
        "passage": passage,
    }
    return AttentionCheck(payload, {"rating": rating})


def report_coverage_check(rng: random.Random, n: int) -> AttentionCheck:
    answerable = rng.random() < 0.5
    word = "yes" if answerable else "no"
    report = f"{INTRO} For every question listed next to this report, please answer {word}."
    questions = [
        {
            "position": i,
            "text": f"Attention check question {i + 1}: follow the report's request.",
            "subquestion_id": None,
        }
        for i in range(2)
    ]
    payload = {
        "topic": f"attention-{n}",
        "request": "Attention check",
        "output_id": f"attention-{n}",
        "report": report,
        "questions": questions,
    }
    expected = {"answers": [{"position": i, "answerable": int(answerable)} for i in range(2)]}
    return AttentionCheck(payload, expected)


def answer_equivalence_check(rng: random.Random, n: int) -> AttentionCheck:
    same = rng.random() < 0.5
    payload = {
        "topic": f"attention-{n}",
        "question": "Attention check: read the response below.",
        "gold_answers": ["attention"],
        "response": f"{INTRO} Please answer {'yes' if same else 'no'} for this item.",
    }
    return AttentionCheck(payload, {"equivalent": same})


def failure_category_check(rng: random.Random, n: int) -> AttentionCheck:
    category = rng.choice(sorted(FAILURE_CATEGORIES))
    text = f"{INTRO} Please choose category {category} for this item."
    payload = {
        "topic": f"attention-{n}",
        "question": "Attention check: read the RAG answer below.",
        "gold_answers": ["attention"],
        "gold_passages": [],
        "retrieved": [],
        "rag_answer": text,
        "semi_gold_answers": [text],
    }
    return AttentionCheck(payload, {"category": category})


def build_attention_checks(task_type: str, count: int, seed: int) -> list[AttentionCheck]:
    """``count`` attention checks for ``task_type`` (its entry's ``attention_check``); the same
    seed gives the same checks."""
    rng = random.Random(seed)
    build = task_type_entry(task_type).attention_check
    return [build(rng, i + 1) for i in range(count)]
