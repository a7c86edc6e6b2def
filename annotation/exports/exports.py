"""Campaign exports: every label as CSV, per-annotator progress as CSV, and one annotator's
labels of tasks 1/2 in the CRUX platform's qrels / qlabels JSONL (written by the formatters of
``crux_app.dataio.export_labels``, so the shapes are the platform's, byte for byte)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

import pandas as pd
from django.contrib.auth.models import AbstractBaseUser

from annotation.models import Assignment, Campaign
from annotation.quality.checks import speeding_floor_ms
from annotation.quality.progress import annotator_rows
from annotation.task_types.answers import agreement_score, answer_summary
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.csv_safety import safe_frame
from crux_app.dataio.export_labels import NOT_JUDGED, platform_coverage, qlabels_line, qrels_line
from crux_app.models import GeneratedOutput, Passage, SubQuestion, Topic

CSV_FORMAT = "csv"
ANNOTATORS_FORMAT = "annotators"
FORMATS = (CSV_FORMAT, ANNOTATORS_FORMAT, "qrels", "qlabels")

LABEL_COLUMNS = [
    "campaign", "task_type", "item", "item_kind", "topic", "subquestion_position",
    "subquestion", "passage", "output", "annotator", "source", "rating", "rationale",
    "rationale_start", "rationale_end", "answerable", "equivalent", "category", "is_gold",
    "gold_score", "is_attention_check", "attention_passed", "time_spent_ms", "submitted_at",
    # Post-editing campaigns: the label was given seeing the judge's suggestion (not blind).
    "post_edited", "suggestion_judge", "suggestion", "kept_suggestion",
]  # fmt: skip


class CampaignExportError(ValueError):
    pass


def platform_format(campaign: Campaign) -> str | None:
    """The task type's platform format (``qrels`` for passage rating, ``qlabels`` for report
    coverage), None otherwise."""
    entry = TASK_TYPE_REGISTRY.get(campaign.task_type)
    return entry.platform_format if entry is not None else None


def coverage_rows(answer: dict[str, Any], payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Report coverage's row fragments: one per sub-question, with its text."""
    questions = {q["position"]: q["text"] for q in payload.get("questions", [])}
    return [
        {
            "subquestion_position": a["position"],
            "answerable": a["answerable"],
            "rationale": a.get("span", ""),
            "rationale_start": a.get("span_start"),
            "rationale_end": a.get("span_end"),
            "subquestion": questions.get(a["position"]),
        }
        for a in answer.get("answers", [])
    ]


def label_columns(task_type: str) -> list[str]:
    """The label export's columns for a task: the shared ones, then the task type's own
    (``export_columns``; none for the built-in types)."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    extra = [c for c in entry.export_columns if c not in LABEL_COLUMNS] if entry else []
    return [*LABEL_COLUMNS, *extra]


def _answer_columns(task_type: str, answer: dict[str, Any], payload: dict[str, Any]) -> list:
    """One or more row fragments per answer (its task type's ``export_rows``), label columns
    only."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    fragments = entry.export_rows(answer, payload) if entry is not None else [answer]
    columns = set(label_columns(task_type))
    return [{k: v for k, v in f.items() if k in columns} for f in fragments]


def labels_frame(campaign: Campaign) -> pd.DataFrame:
    """Every submitted label of the campaign, one row per label (report coverage: per
    sub-question), with gold and attention-check results."""
    return pd.DataFrame(list(label_rows(campaign)), columns=label_columns(campaign.task_type))


def label_rows(campaign: Campaign, chunk_size: int = 5000) -> Iterator[dict[str, Any]]:
    """``labels_frame``'s rows one at a time, read through a server-side cursor
    (``iterator(chunk_size=...)``): a streamed export holds one chunk, not the campaign."""
    # Plain values, not model instances: a 100,000-label export spent most of its time
    # building Assignment, CampaignItem, User and profile objects.
    assignments = (
        Assignment.objects.submitted()
        .filter(campaign=campaign)
        .order_by("item_id", "submitted_at", "id")
        .values_list(
            "item_id",
            "item__kind",
            "item__payload",
            "item__is_gold",
            "item__gold_answer",
            "item__is_attention_check",
            "item__expected_answer",
            "annotator__username",
            "annotator__annotator_profile__source",
            "answer",
            "time_spent_ms",
            "submitted_at",
            "suggestion",
            "kept_suggestion",
        )
    )
    post_edited = campaign.is_post_editing
    judge = campaign.suggestion_judge.name if post_edited else ""
    for (
        item_id,
        item_kind,
        payload,
        is_gold,
        gold_answer,
        is_attention_check,
        expected_answer,
        username,
        source,
        answer,
        time_spent_ms,
        submitted_at,
        suggestion,
        kept_suggestion,
    ) in assignments.iterator(chunk_size=chunk_size):
        base = {
            "campaign": campaign.slug,
            "task_type": campaign.task_type,
            "item": item_id,
            "item_kind": item_kind,
            "topic": payload.get("topic"),
            "subquestion_position": payload.get("position"),
            "subquestion": payload.get("question"),
            "passage": payload.get("passage_id"),
            "output": payload.get("output_id"),
            "annotator": username,
            "source": source or "",
            "is_gold": is_gold,
            "gold_score": (
                agreement_score(campaign.task_type, answer, gold_answer, campaign.gold_tolerance)
                if is_gold and gold_answer
                else None
            ),
            "is_attention_check": is_attention_check,
            "attention_passed": (
                agreement_score(campaign.task_type, answer, expected_answer) == 1.0
                if is_attention_check and expected_answer
                else None
            ),
            "time_spent_ms": time_spent_ms,
            "submitted_at": submitted_at.isoformat() if submitted_at else None,
            "post_edited": post_edited,
            "suggestion_judge": judge,
            "suggestion": answer_summary(campaign.task_type, suggestion),
            "kept_suggestion": kept_suggestion,
        }
        for fragment in _answer_columns(campaign.task_type, answer or {}, payload):
            yield {**base, **fragment}


def annotators_frame(campaign: Campaign) -> pd.DataFrame:
    """The campaign page's per-annotator table."""
    floor = speeding_floor_ms(campaign.task_type)
    rows = [
        {
            "annotator": r.username,
            "source": r.source,
            "submitted": r.submitted,
            "controls_submitted": r.controls,
            "reserved": r.live,
            "skipped": r.skipped,
            "expired": r.expired,
            "median_time_ms": r.median_ms,
            "speeding_floor_ms": floor,
            "speeding": r.speeding,
            "gold_n": r.quality.gold_n,
            "gold_accuracy": r.quality.gold_accuracy,
            "attention_n": r.quality.attention_n,
            "attention_passed": r.quality.attention_passed,
            "flagged": r.quality.flagged,
            "blocked": r.blocked,
        }
        for r in annotator_rows(campaign)
    ]
    return pd.DataFrame(rows)


def write_csv(campaign: Campaign, out: TextIO, what: str = CSV_FORMAT) -> int:
    frame = annotators_frame(campaign) if what == ANNOTATORS_FORMAT else labels_frame(campaign)
    safe_frame(frame).to_csv(out, index=False, lineterminator="\n")
    return len(frame)


def _topic_questions(topic_ids: set[int]) -> dict[int, list[tuple[str, bool]]]:
    questions: dict[int, list[tuple[str, bool]]] = defaultdict(list)
    rows = SubQuestion.objects.filter(topic_id__in=topic_ids).order_by("topic_id", "position")
    for topic_id, text, placeholder in rows.values_list("topic_id", "text", "is_placeholder"):
        questions[topic_id].append((text, placeholder))
    return questions


def write_platform_labels(campaign: Campaign, annotator: AbstractBaseUser, out: TextIO) -> int:
    """One annotator's labels in their task type's CRUX platform format (its
    ``write_platform``: qrels for passage rating, qlabels for report coverage)."""
    entry = TASK_TYPE_REGISTRY.get(campaign.task_type)
    if entry is None or entry.platform_format is None or entry.write_platform is None:
        raise CampaignExportError(
            f"task '{campaign.task_type}' has no CRUX platform format; export CSV instead"
        )
    done = list(
        Assignment.objects.submitted()
        .filter(campaign=campaign, annotator=annotator, item__is_attention_check=False)
        .select_related("item")
        .order_by("submitted_at", "id")
    )
    return entry.write_platform(done, out)


def _questions_and_topics(
    done: Sequence[Assignment],
) -> tuple[dict[int, list[tuple[str, bool]]], dict[int, str]]:
    questions = _topic_questions({a.item.topic_id for a in done})
    topics = dict(Topic.objects.filter(pk__in=questions).values_list("pk", "external_id"))
    return questions, topics


def write_qrels(done: Sequence[Assignment], out: TextIO) -> int:
    """Passage-rating assignments as qrels lines, one per (topic, passage)."""
    questions, topics = _questions_and_topics(done)
    groups: dict[tuple[int, int], tuple[list, list]] = {}
    for a in done:
        topic_id, position = a.item.topic_id, a.item.payload["position"]
        size = len(questions[topic_id])
        ratings, rationales = groups.setdefault(
            (topic_id, a.item.passage_id), ([None] * size, [""] * size)
        )
        ratings[position] = a.answer["rating"]
        rationales[position] = a.answer.get("rationale", "")
    passages = Passage.objects.in_bulk({p for _, p in groups})
    for (topic_id, passage_id), (ratings, rationales) in groups.items():
        out.write(
            qrels_line(topics[topic_id], passages[passage_id].external_id, ratings, rationales)
        )
    return len(groups)


def write_qlabels(done: Sequence[Assignment], out: TextIO) -> int:
    """Report-coverage assignments as qlabels lines, one per report."""
    questions, _ = _questions_and_topics(done)
    outputs = GeneratedOutput.objects.in_bulk({a.item.output_id for a in done})
    for a in done:
        topic_questions = questions[a.item.topic_id]
        judged = {m["position"]: (m["answerable"], m.get("span", "")) for m in a.answer["answers"]}
        ratings = [judged[p][0] if p in judged else NOT_JUDGED for p in range(len(topic_questions))]
        out.write(
            qlabels_line(
                outputs[a.item.output_id].external_id,
                topic_questions,
                judged,
                platform_coverage(ratings),
                {},
            )
        )
    return len(done)
