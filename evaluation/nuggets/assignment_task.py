"""The ``nugget_assignment`` annotation task: a person says whether an answer states one nugget
(support / partial support / not support), as the TREC RAG track's assessors and the LLM
nugget judge do (``NuggetAssignment``).

An item is one (nugget, answer) pair of the collection: the annotator reads the topic, the
answer sentence by sentence and the nugget with its importance, and answers with 1 / 2 / 3.
Blind: the payload is built from the nugget and the answer only, never from a judge's
assignment, so no LLM label can reach the page.

Answer: ``{"assignment": "support" | "partial_support" | "not_support"}``. Score against gold:
1 for the same label, 0.5 one step apart (support vs partial support, partial vs not
support), 0 for support vs not support: the credit the track's non-strict scores give
(``method.scores.CREDIT``: 1, 0.5, 0), so a half-right answer counts as the scorer would.
The campaign's gold tolerance (rating points of a 0-5 answer) does not apply. The people's
labels are mirrored as their human judge's ``NuggetAssignment`` rows
(``evaluation.nuggets.assignment_labels``).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from annotation.task_types.answers import AnswerError
from annotation.task_types.registry import AttentionCheck, ItemSpec
from crux_app.models import Collection, GeneratedOutput
from evaluation.nuggets.method.scores import CREDIT, NOT_SUPPORT, PARTIAL_SUPPORT, SUPPORT
from evaluation.nuggets.models import AnswerSentence, Nugget

TASK_KEY = "nugget_assignment"
FIELD = "assignment"
# Key -> label, in the order the choices show; the same digits as the LLM's 3-grade prompt.
KEY_LABELS = {"1": SUPPORT, "2": PARTIAL_SUPPORT, "3": NOT_SUPPORT}
# What a gold cell may say for each label (its key, its name, its words).
GOLD_SPELLINGS = {
    **{key: label for key, label in KEY_LABELS.items()},
    **{label: label for label in KEY_LABELS.values()},
    "partial": PARTIAL_SUPPORT,
    "partial support": PARTIAL_SUPPORT,
    "partial-support": PARTIAL_SUPPORT,
    "not support": NOT_SUPPORT,
    "not-support": NOT_SUPPORT,
    "not supported": NOT_SUPPORT,
    "supported": SUPPORT,
}
INTRO = "This item is an attention check, included to make sure every item is read."


def _label(field: str, text: str | None) -> str:
    value = " ".join((text or "").strip().lower().split())
    label = GOLD_SPELLINGS.get(value)
    if label is None:
        raise AnswerError(field, "answer 1 (support), 2 (partial support) or 3 (not support)")
    return label


def parse_answer(data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    """The workspace form's choice (a label, or its key 1-3)."""
    return {FIELD: _label(FIELD, data.get(FIELD))}


def answer_to_draft(answer: Mapping[str, Any]) -> dict[str, str]:
    return {FIELD: str(answer.get(FIELD, ""))}


def parse_gold(text: str, payload: Mapping[str, Any]) -> dict:
    """A gold cell: ``1``-``3``, ``support``, ``partial_support`` (or ``partial``),
    ``not_support`` (or ``not support``)."""
    return {FIELD: _label("gold", text)}


def score(answer: Mapping[str, Any], gold: Mapping[str, Any], tolerance: int) -> float:
    """1 for the same label, 0.5 one step apart, 0 for support vs not support (see above)."""
    given, wanted = answer.get(FIELD), gold.get(FIELD)
    if given not in CREDIT or wanted not in CREDIT:
        return 0.0
    return 1.0 - abs(CREDIT[given] - CREDIT[wanted])


def summary(answer: Mapping[str, Any]) -> str:
    return str(answer.get(FIELD, ""))


def attention_check(rng: random.Random, n: int) -> AttentionCheck:
    key = rng.choice(sorted(KEY_LABELS))
    label = KEY_LABELS[key]
    payload = {
        "topic": f"attention-{n}",
        "request": "Attention check",
        "output_id": f"attention-{n}",
        "sentences": [INTRO, f"Whatever the nugget says, please answer {key} for this item."],
        "nugget": f"Attention check: the answer asks you to press {key}.",
        "importance": "vital",
    }
    return AttentionCheck(payload, {FIELD: label})


def eligible_keys(collection: Collection) -> list[tuple[int, int]]:
    """Every (nugget id, answer output id) of the collection whose answer is split into
    sentences (what the LLM judge assigns), by topic, answer and nugget position; ids only."""
    outputs = (
        GeneratedOutput.objects.filter(
            collection=collection, sentences__isnull=False, topic__nuggets__isnull=False
        )
        .distinct()
        .order_by("topic__external_id", "external_id")
        .values_list("pk", "topic_id", "topic__external_id", "external_id")
    )
    nuggets: dict[int, list[int]] = defaultdict(list)
    rows = Nugget.objects.filter(topic__collection=collection).order_by("topic_id", "position")
    for pk, topic_id in rows.values_list("pk", "topic_id"):
        nuggets[topic_id].append(pk)
    return [(nugget, pk) for pk, topic_id, _, _ in outputs for nugget in nuggets[topic_id]]


def item_specs(keys: Sequence[tuple[int, int]]) -> list[ItemSpec]:
    """The items of these keys: a snapshot of the topic, the answer's sentences and the
    nugget (no judge's label: the task is blind)."""
    nuggets = Nugget.objects.select_related("topic").in_bulk({n for n, _ in keys})
    outputs = GeneratedOutput.objects.in_bulk({o for _, o in keys})
    sentences: dict[int, list[str]] = defaultdict(list)
    rows = AnswerSentence.objects.filter(output_id__in=outputs).order_by("output_id", "position")
    for output_id, text in rows.values_list("output_id", "text"):
        sentences[output_id].append(text)
    specs = []
    for nugget_id, output_id in keys:
        nugget, output = nuggets[nugget_id], outputs[output_id]
        payload = {
            "topic": nugget.topic.external_id,
            "request": nugget.topic.request,
            "output_id": output.external_id,
            "sentences": sentences[output_id] or [output.text],
            "nugget_id": nugget_id,
            "nugget_position": nugget.position,
            "nugget": nugget.text,
            "importance": nugget.importance,
        }
        specs.append(
            ItemSpec(
                TASK_KEY,
                payload,
                nugget.topic_id,
                subquestion_id=nugget.subquestion_id,
                output_id=output_id,
            )
        )
    return specs


def export_rows(answer: Mapping[str, Any], payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            FIELD: answer.get(FIELD),
            "nugget_id": payload.get("nugget_id"),
            "nugget_position": payload.get("nugget_position"),
            "nugget": payload.get("nugget"),
            "importance": payload.get("importance"),
        }
    ]


def item_label(payload: Mapping[str, Any]) -> str:
    return (
        f"{payload.get('topic')} · nugget {payload.get('nugget_position')} · "
        f"{payload.get('output_id')}"
    )
