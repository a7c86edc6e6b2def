"""The four crowd task types ``annotation`` declares itself (``AnnotationConfig.ready``).

Each entry names the functions of its answers (``task_types/answers.py``), items
(``queue/selection.py``), attention checks (``task_types/attention_checks.py``), export rows
(``exports/``) and judgment mirroring (``workspace/submission.py``), and its workspace partial;
and its review vocabulary and units, its judgments table and machine review items through the
same hooks a method's task type fills, so the review, quality and aggregation code names no
built-in task (``tests/architecture/test_task_type_names.py``). Answer equivalence (SePer) and
the failure category (LLM-retEval) stay here although one method reads their labels: the
campaign pages, the review queue and the judge report list them without that method installed.

A declaration like an app's ``apps.py``, so it sits at the top of ``annotation`` (beside
``apps.py``, above every part, ``annotation.PARTS``): it names functions of most parts.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import partial
from typing import Any

from annotation.campaigns import setup as campaign_setup
from annotation.campaigns.from_items import check_rating_keys
from annotation.exports import exports
from annotation.labels import machine_items
from annotation.queue import selection
from annotation.task_types import answers, attention_checks
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    ANSWER_KEYS,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
    TASK_LABELS,
)
from annotation.task_types.registry import TaskType, WorkspaceKeys
from annotation.workspace import submission, undo
from crux_app import vocabulary


def _rating_item_label(payload: Mapping[str, Any]) -> str:
    return f"{payload.get('topic')} #{payload.get('position')} · {payload.get('passage_id')}"


def _rating_cue(payload: Mapping[str, Any]) -> dict[str, str]:
    """The change cue's data (``static/js/workspace_cue.js``): the same topic and sub-question
    with another passage flashes the passage."""
    return {
        "context": f"{payload.get('topic')}|{payload.get('position')}",
        "passage": str(payload.get("passage_id")),
    }


YES_NO = {"y": "yes", "n": "no"}

# The review vocabulary: each label as the reviewer reads it, and the hint of what to type.
RATING_WORDS = {
    r: f"{r} — {level.text}"
    for r in vocabulary.RATINGS
    for level in vocabulary.RUBRIC_LEVELS
    if level.rating == r
}
CATEGORY_WORDS = {
    letter: f"{letter}: {text}" for letter, text in vocabulary.FAILURE_CATEGORIES.items()
}
LETTERS = vocabulary.FAILURE_LETTERS


def _rating_unit(payload: Mapping[str, Any], answer: Mapping[str, Any]) -> tuple[int, str] | None:
    if "rating" not in answer:
        return None
    key = f"{payload.get('topic', '')}/{payload.get('position')}/{payload.get('passage_id')}"
    return int(answer["rating"]), key


def _coverage_units(
    payload: Mapping[str, Any], answer: Mapping[str, Any]
) -> dict[Hashable, tuple[Any, str]]:
    """One unit per sub-question of the report."""
    topic, output = payload.get("topic", ""), payload.get("output_id")
    return {
        a["position"]: (int(a["answerable"]), f"{topic}/{a['position']}/{output}")
        for a in answer.get("answers", [])
    }


def _equivalence_label(answer: Mapping[str, Any]) -> int | None:
    return int(bool(answer["equivalent"])) if "equivalent" in answer else None


def _category_label(answer: Mapping[str, Any]) -> str | None:
    return str(answer["category"]) if answer.get("category") else None


def _output_unit(
    label_of: Any, payload: Mapping[str, Any], answer: Mapping[str, Any]
) -> tuple[Any, str] | None:
    """An answer's one label on the output it is about (``<topic>/<output id>``)."""
    label = label_of(answer)
    if label is None:
        return None
    return label, f"{payload.get('topic', '')}/{payload.get('output_id')}"


BUILTIN_TASK_TYPES: tuple[TaskType, ...] = (
    TaskType(
        key=PASSAGE_RATING,
        label=TASK_LABELS[PASSAGE_RATING],
        template="annotation/tasks/passage_rating.html",
        answer_keys=ANSWER_KEYS[PASSAGE_RATING],
        parse_answer=answers.parse_rating_answer,
        answer_to_draft=answers.rating_draft,
        parse_gold=answers.parse_rating_gold,
        score=answers.rating_score,
        summary=answers.rating_summary,
        attention_check=attention_checks.passage_rating_check,
        eligible_keys=selection.rating_pairs,
        item_specs=partial(selection.rating_specs, kind=PASSAGE_RATING),
        needs="topics with sub-questions and passages in runs or qrels",
        selects_outputs=False,
        item_label=_rating_item_label,
        platform_format="qrels",
        mirror_judgments=submission.mirror_rating,
        judge_answers=campaign_setup.rating_judge_answers,
        mirrored_judgments=undo.rating_judgments,
        keys=WorkspaceKeys(
            answer_field="rating",
            values={str(r): str(r) for r in vocabulary.RATINGS},
            missing="Choose a rating first: press 0-5.",
            spans=True,
        ),
        item_data=_rating_cue,
        write_platform=exports.write_qrels,
        check_chosen_keys=check_rating_keys,
        review_labels=RATING_WORDS,
        review_hint=vocabulary.key_range(vocabulary.RATINGS),
        review_unit=_rating_unit,
        judgment_item="passage",
        crux_pairs=True,
    ),
    TaskType(
        key=REPORT_COVERAGE,
        label=TASK_LABELS[REPORT_COVERAGE],
        template="annotation/tasks/report_coverage.html",
        answer_keys=ANSWER_KEYS[REPORT_COVERAGE],
        parse_answer=answers.parse_coverage_answer,
        answer_to_draft=answers.coverage_draft,
        parse_gold=answers.parse_coverage_gold,
        score=answers.coverage_score,
        summary=answers.coverage_summary,
        attention_check=attention_checks.report_coverage_check,
        eligible_keys=selection.coverage_outputs,
        item_specs=partial(selection.coverage_specs, kind=REPORT_COVERAGE),
        needs="generated reports on topics with sub-questions",
        export_rows=exports.coverage_rows,
        platform_format="qlabels",
        mirror_judgments=submission.mirror_coverage,
        judge_answers=campaign_setup.coverage_judge_answers,
        mirrored_judgments=undo.coverage_judgments,
        keys=WorkspaceKeys(
            answer_field="answer_",
            values=YES_NO,
            missing="Answer every sub-question first: y or n (arrows move between them).",
            rows=True,
            row_name="sub-question",
            spans=True,
        ),
        write_platform=exports.write_qlabels,
        review_labels={0: "not answerable (0)", 1: "answerable (1)"},
        review_hint="0 or 1",
        review_units=_coverage_units,
        judgment_item="output",
    ),
    TaskType(
        key=ANSWER_EQUIVALENCE,
        label=TASK_LABELS[ANSWER_EQUIVALENCE],
        template="annotation/tasks/answer_equivalence.html",
        answer_keys=ANSWER_KEYS[ANSWER_EQUIVALENCE],
        parse_answer=answers.parse_equivalence_answer,
        answer_to_draft=answers.equivalence_draft,
        parse_gold=answers.parse_equivalence_gold,
        score=answers.equivalence_score,
        summary=answers.equivalence_summary,
        attention_check=attention_checks.answer_equivalence_check,
        eligible_keys=selection.equivalence_outputs,
        item_specs=partial(selection.equivalence_specs, kind=ANSWER_EQUIVALENCE),
        needs="generated answers on topics with gold answers",
        keys=WorkspaceKeys(
            answer_field="equivalent", values=YES_NO, missing="Answer first: press y or n."
        ),
        review_labels={0: "not equivalent (0)", 1: "equivalent (1)"},
        review_hint="0 or 1",
        answer_label=_equivalence_label,
        review_unit=partial(_output_unit, _equivalence_label),
        machine_items=partial(machine_items.generated_answer_items, semi_gold_reference=False),
    ),
    TaskType(
        key=FAILURE_CATEGORY,
        label=TASK_LABELS[FAILURE_CATEGORY],
        template="annotation/tasks/failure_category.html",
        answer_keys=ANSWER_KEYS[FAILURE_CATEGORY],
        parse_answer=answers.parse_category_answer,
        answer_to_draft=answers.category_draft,
        parse_gold=answers.parse_category_gold,
        score=answers.category_score,
        summary=answers.category_summary,
        attention_check=attention_checks.failure_category_check,
        eligible_keys=selection.failure_outputs,
        item_specs=partial(selection.failure_specs, kind=FAILURE_CATEGORY),
        needs=(
            "RAG answers with retrieved passages on topics with gold passages and a "
            f"'{vocabulary.SEMI_GOLD_PREFIX}*' answer"
        ),
        # No key map: the keys are the page's choices' data-key (the vocabulary's letters).
        keys=WorkspaceKeys(
            answer_field="category", missing="Choose a category first: press {keys}."
        ),
        review_labels=CATEGORY_WORDS,
        review_hint=f"{LETTERS[0]}-{LETTERS[-1]}",
        answer_label=_category_label,
        review_unit=partial(_output_unit, _category_label),
        machine_items=partial(machine_items.generated_answer_items, semi_gold_reference=True),
    ),
)
