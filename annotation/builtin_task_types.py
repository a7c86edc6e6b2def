"""The four crowd task types ``annotation`` declares itself (``AnnotationConfig.ready``).

Each entry names the functions of its answers (``answers``), items (``selection``), attention
checks (``attention_checks``), export rows (``exports``) and judgment mirroring
(``submission``), and its workspace partial. Answer equivalence (SePer) and the failure
category (LLM-retEval) stay here although one method reads their labels: the campaign pages,
the review queue and the judge report list them without that method installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crux_app import vocabulary

from . import answers, attention_checks, campaign_setup, exports, selection, submission, undo
from .campaign_from_items import check_rating_keys
from .task_type_registry import TaskType, WorkspaceKeys
from .task_types import (
    ANSWER_EQUIVALENCE,
    ANSWER_KEYS,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
    TASK_LABELS,
)


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
        item_specs=selection.rating_specs,
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
        item_specs=selection.coverage_specs,
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
        item_specs=selection.equivalence_specs,
        needs="generated answers on topics with gold answers",
        keys=WorkspaceKeys(
            answer_field="equivalent", values=YES_NO, missing="Answer first: press y or n."
        ),
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
        item_specs=selection.failure_specs,
        needs=(
            "RAG answers with retrieved passages on topics with gold passages and a "
            f"'{vocabulary.SEMI_GOLD_PREFIX}*' answer"
        ),
        # No key map: the keys are the page's choices' data-key (the vocabulary's letters).
        keys=WorkspaceKeys(
            answer_field="category", missing="Choose a category first: press {keys}."
        ),
    ),
)
