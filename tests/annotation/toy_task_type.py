"""A task type that exists only in the tests: what a method declares for its own human task
(``Declaration.annotation_task_types``), to show that nothing in ``annotation`` names it."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from annotation.queue.selection import ItemSpec
from annotation.task_types.answers import AnswerError
from annotation.task_types.attention_checks import AttentionCheck
from annotation.task_types.registry import TaskType
from crux_app.models import Collection, Topic

TOY_KEY = "toy_fluency"


def parse_fluency(data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    text = (data.get("fluent") or "").strip().lower()
    if text not in {"good", "bad"}:
        raise AnswerError("fluent", "answer good or bad")
    return {"fluent": text == "good"}


def fluency_check(rng: random.Random, n: int) -> AttentionCheck:
    fluent = rng.random() < 0.5
    payload = {"topic": f"attention-{n}", "text": f"Please answer {'good' if fluent else 'bad'}."}
    return AttentionCheck(payload, {"fluent": fluent})


def topics(collection: Collection) -> list[int]:
    return list(Topic.objects.filter(collection=collection).values_list("pk", flat=True))


def topic_specs(keys: Sequence[int]) -> list[ItemSpec]:
    requests = Topic.objects.in_bulk(keys)
    return [
        ItemSpec(TOY_KEY, {"topic": requests[pk].external_id, "text": requests[pk].request}, pk)
        for pk in keys
    ]


TOY = TaskType(
    key=TOY_KEY,
    label="Fluency (good / bad)",
    template="annotation/tasks/answer_equivalence.html",
    answer_keys="g / b",
    parse_answer=parse_fluency,
    answer_to_draft=lambda answer: {"fluent": "good" if answer.get("fluent") else "bad"},
    parse_gold=lambda text, payload: parse_fluency({"fluent": text}, payload),
    score=lambda answer, gold, tolerance: float(answer["fluent"] == gold["fluent"]),
    summary=lambda answer: "good" if answer["fluent"] else "bad",
    attention_check=fluency_check,
    eligible_keys=topics,
    item_specs=topic_specs,
    needs="topics",
    selects_outputs=False,
    export_columns=("fluent",),
)
