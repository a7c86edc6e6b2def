"""Storing a submitted answer, once, and mirroring task 1/2 labels as crux_app judgments.

A submit locks the assignment row; a second submit of the same assignment (a double Enter, a
retried request) finds it submitted and changes nothing, so an answer is stored and counted
once. Labels of passage rating and report coverage are also written, in the same
transaction, as ``Judgment`` rows of the annotator's human judge (named ``user:<username>``),
so the agreement analysis and ``export_labels`` see campaign labels like imported ones. When
the same person labels the same (sub-question, passage or report) again in another campaign,
the judgment holds the latest label. Labels of a post-editing campaign (annotators saw a
machine judge's suggestion) go to the person's post-edit judge instead (``label_judge``), so
they never mix with their blind labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.campaigns.events import label_stored
from annotation.crowd import control as crowd_control
from annotation.labels.post_editing import (
    kept,
    post_edit_judge,
    post_edit_judge_name,
    suggestion_for,
)
from annotation.models import Assignment, CampaignItem
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.data_version import bump_topics
from crux_app.models import Judge, Judgment

MAX_TIME_MS = 24 * 3600 * 1000


@dataclass(frozen=True)
class SubmitResult:
    assignment: Assignment
    stored: bool  # False when it had been submitted before


def human_judge(user: AbstractBaseUser) -> Judge:
    """The annotator's own human judge, created on their first label."""
    judge, _ = Judge.objects.get_or_create(
        user=user, defaults={"name": f"user:{user.get_username()}", "kind": Judge.Kind.HUMAN}
    )
    return judge


def label_judge(assignment: Assignment) -> Judge:
    """The judge an assignment's labels are mirrored under: the annotator's post-edit judge in
    a post-editing campaign, else their blind human judge. A task type's ``mirror_judgments``
    that writes its own rows takes its judge from here."""
    if assignment.campaign.is_post_editing:
        return post_edit_judge(assignment.annotator)
    return human_judge(assignment.annotator)


def clamp_time(time_spent_ms: int | None, assignment: Assignment, now: datetime) -> int:
    """The browser's measure of time on the item; the time since reservation when absent."""
    if time_spent_ms is None or time_spent_ms < 0:
        time_spent_ms = int((now - assignment.reserved_at).total_seconds() * 1000)
    return max(0, min(int(time_spent_ms), MAX_TIME_MS))


def submit(
    assignment: Assignment,
    answer: dict[str, Any],
    time_spent_ms: int | None = None,
    now: datetime | None = None,
) -> SubmitResult:
    """Store the answer and count it on the item, exactly once."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("item", "annotator", "campaign")
            .get(pk=assignment.pk)
        )
        if locked.state == Assignment.State.SUBMITTED:
            return SubmitResult(locked, stored=False)
        was_reserved = locked.state == Assignment.State.RESERVED
        locked.state = Assignment.State.SUBMITTED
        locked.answer = answer
        locked.draft = {}
        locked.time_spent_ms = clamp_time(time_spent_ms, locked, now)
        locked.submitted_at = now
        suggestion = suggestion_for(locked.campaign, locked)
        locked.kept_suggestion = (
            None if suggestion is None else kept(locked.campaign.task_type, answer, suggestion)
        )
        locked.save(
            update_fields=[
                "state",
                "answer",
                "draft",
                "time_spent_ms",
                "submitted_at",
                "kept_suggestion",
            ]
        )
        CampaignItem.objects.filter(pk=locked.item_id).update(
            annotations_done=F("annotations_done") + 1,
            reserved_count=F("reserved_count") - (1 if was_reserved else 0),
        )
        mirror_judgments(locked)
        crowd_control.update_confidence(locked)
        if not locked.item.is_control:
            # After the commit, so labels stored at the same time all count (webhooks).
            transaction.on_commit(partial(label_stored, locked.campaign_id))
    return SubmitResult(locked, stored=True)


def mirror_judgments(assignment: Assignment) -> int:
    """Write the answer of an item as judgments (its task type's ``mirror_judgments``: passage
    rating and report coverage); returns how many rows were written (0 for other tasks and for
    attention checks)."""
    item = assignment.item
    if item.is_attention_check or item.topic_id is None or item.kind not in TASK_TYPE_REGISTRY:
        return 0
    return TASK_TYPE_REGISTRY[item.kind].mirror_judgments(assignment)


def _common(assignment: Assignment) -> dict[str, Any]:
    return {"topic_id": assignment.item.topic_id, "time_spent_ms": assignment.time_spent_ms}


def mirror_rating(assignment: Assignment) -> int:
    """A passage-rating answer as the judgment of its (sub-question, passage)."""
    item, answer, common = assignment.item, assignment.answer or {}, _common(assignment)
    if item.subquestion_id and item.passage_id:
        row = {
            **common,
            "subquestion_id": item.subquestion_id,
            "passage_id": item.passage_id,
            "task": Judgment.Task.PASSAGE_RATING,
            "rating": answer["rating"],
            "rationale": answer.get("rationale", ""),
            "rationale_start": answer.get("rationale_start"),
            "rationale_end": answer.get("rationale_end"),
        }
        return _write_judgments(assignment, "passage_id", [row])
    return 0


def mirror_coverage(assignment: Assignment) -> int:
    """A report-coverage answer as one judgment per (sub-question, report)."""
    item, answer, common = assignment.item, assignment.answer or {}, _common(assignment)
    if item.output_id:
        subquestions = {
            q["position"]: q["subquestion_id"] for q in item.payload.get("questions", [])
        }
        marks = [a for a in answer.get("answers", []) if subquestions.get(a["position"])]
        # The item's time is spread over its sub-questions: one report, several labels.
        share = (assignment.time_spent_ms or 0) // max(1, len(marks))
        rows = {
            subquestions[mark["position"]]: {
                **common,
                "subquestion_id": subquestions[mark["position"]],
                "output_id": item.output_id,
                "task": Judgment.Task.REPORT_COVERAGE,
                "rating": mark["answerable"],
                "rationale": mark.get("span", ""),
                "rationale_start": mark.get("span_start"),
                "rationale_end": mark.get("span_end"),
                "time_spent_ms": share,
            }
            for mark in marks
        }
        _write_judgments(assignment, "output_id", list(rows.values()))
        return len(marks)
    return 0


def _write_judgments(assignment: Assignment, item_field: str, rows: list[dict[str, Any]]) -> int:
    """Insert or update the annotator's judgments of ``rows`` (one per sub-question and
    ``item_field``), then bump the collection's data version; returns the rows written.

    One statement (the judge looked up inside it, an upsert on the partial unique constraint)
    instead of a judge lookup and a savepoint-guarded ``update_or_create`` per row: the same
    rows, written in a sixth of the round trips. A first label creates the judge and retries.
    The judge is the annotator's blind one (by account) or, in a post-editing campaign, their
    post-edit judge (by name).
    """
    if not rows:
        return 0
    user = assignment.annotator
    if assignment.campaign.is_post_editing:
        judge = (
            POST_EDIT_JUDGE,
            [post_edit_judge_name(user.get_username()), Judge.Kind.POST_EDITED.value],
        )
    else:
        judge = (BLIND_JUDGE, [user.pk])
    written = _upsert_judgments(judge, item_field, rows)
    if written == 0:
        label_judge(assignment)
        written = _upsert_judgments(judge, item_field, rows)
    # No post_save signal fires for raw SQL; the bump comes after the write (data_version).
    bump_topics({row["topic_id"] for row in rows})
    return written


# What a second label of the same pair changes (update_or_create's defaults, and updated_at).
UPDATED = (
    "topic_id",
    "task",
    "rating",
    "rationale",
    "rationale_start",
    "rationale_end",
    "time_spent_ms",
    "updated_at",
)


# Which judge row the upsert writes under (its condition and, in ``_write_judgments``, values).
BLIND_JUDGE = "judge.user_id = %s"
POST_EDIT_JUDGE = "judge.name = %s AND judge.kind = %s"


def _upsert_judgments(
    judge: tuple[str, list[Any]], item_field: str, rows: list[dict[str, Any]]
) -> int:
    """The upsert of ``_write_judgments``; ``judge``: one of the conditions above, its values."""
    condition, judge_params = judge
    now = timezone.now()
    fields = [f for f in Judgment._meta.concrete_fields if not f.primary_key]
    values = [f for f in fields if f.attname != "judge_id"]
    placeholders, params = [], []
    for row in rows:
        placeholders.append("(" + ", ".join(f"%s::{f.db_type(connection)}" for f in values) + ")")
        for f in values:
            if f.attname in row:
                value = row[f.attname]
            elif f.attname in ("created_at", "updated_at"):
                value = now
            else:
                value = f.get_default()
            params.append(f.get_db_prep_save(value, connection))
    columns = ", ".join(f.column for f in values)
    table = Judgment._meta.db_table
    sql = f"""
        INSERT INTO {table} (judge_id, {columns})
        SELECT judge.id, v.* FROM {Judge._meta.db_table} judge,
            (VALUES {", ".join(placeholders)}) AS v ({columns})
        WHERE {condition}
        ON CONFLICT (judge_id, subquestion_id, {item_field}) WHERE {item_field} IS NOT NULL
        DO UPDATE SET {", ".join(f"{c} = EXCLUDED.{c}" for c in UPDATED)}
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *judge_params])
        return cursor.rowcount
