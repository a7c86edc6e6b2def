"""The ``nugget_assignment`` entry of the annotation task-type registry, declared in
``NuggetsConfig`` (apps.py): its answers and items (``assignment_task``), its mirroring as
``NuggetAssignment`` rows (``assignment_labels``) and its workspace partial and keys."""

from __future__ import annotations

from annotation.task_types.registry import TaskType, WorkspaceKeys
from evaluation.nuggets import assignment_labels, assignment_review, assignment_task
from evaluation.nuggets.assignment_task import FIELD, KEY_LABELS, TASK_KEY
from evaluation.nuggets.method.scores import NOT_SUPPORT, PARTIAL_SUPPORT, SUPPORT

NUGGET_ASSIGNMENT = TaskType(
    key=TASK_KEY,
    label="Nugget assignment (does the answer state the nugget? 1-3)",
    template="evaluation/nuggets/tasks/nugget_assignment.html",
    answer_keys="1 / 2 / 3",
    parse_answer=assignment_task.parse_answer,
    answer_to_draft=assignment_task.answer_to_draft,
    parse_gold=assignment_task.parse_gold,
    score=assignment_task.score,
    summary=assignment_task.summary,
    attention_check=assignment_task.attention_check,
    eligible_keys=assignment_task.eligible_keys,
    item_specs=assignment_task.item_specs,
    needs="nuggets and answers split into sentences on the same topics",
    selects_outputs=False,
    export_rows=assignment_task.export_rows,
    export_columns=("nugget_id", "nugget_position", "nugget", "importance", FIELD),
    mirror_judgments=assignment_labels.mirror_assignment,
    judge_answers=assignment_labels.judge_answers,
    item_label=assignment_task.item_label,
    mirrored_judgments=assignment_labels.mirrored_assignments,
    keys=WorkspaceKeys(
        answer_field=FIELD,
        values=KEY_LABELS,
        missing="Answer first: press 1 (support), 2 (partial support) or 3 (not support).",
    ),
    review_unit=assignment_review.answer_unit,
    review_labels={
        SUPPORT: "support",
        PARTIAL_SUPPORT: "partial support",
        NOT_SUPPORT: "not support",
    },
)
