"""Bulk upserts of judges' labels: judgments, coverage labels, passage and subtopic qrels.

Judgment's unique constraints are partial (one per item kind), which PostgreSQL's
``ON CONFLICT`` cannot target without the predicate Django does not emit; so judgments are
matched against the stored rows of the same judge and split into inserts and updates.
"""

from collections.abc import Sequence
from typing import NamedTuple

from django.utils import timezone

from crux_app.models import CoverageLabel, Judge, Judgment, PassageQrel

from .collection_store import BATCH_SIZE
from .errors import ImportFailure
from .pg_copy import insert_rows, upsert_rows


def llm_judge(model_id: str, prompt_version: str) -> Judge:
    """The LLM judge with this identity, created when new."""
    judge = Judge.objects.filter(
        kind=Judge.Kind.LLM, model_id=model_id, prompt_version=prompt_version
    ).first()
    if judge is None:
        judge = Judge.objects.create(
            name=Judge.llm_name(model_id, prompt_version),
            kind=Judge.Kind.LLM,
            model_id=model_id,
            prompt_version=prompt_version,
        )
    return judge


def human_judge(name: str, file: str) -> Judge:
    """The human judge called ``name`` (no account needed), created when new."""
    judge, _ = Judge.objects.get_or_create(name=name, defaults={"kind": Judge.Kind.HUMAN})
    if judge.kind != Judge.Kind.HUMAN:
        raise ImportFailure(file, None, f"judge '{name}' exists and is not a human judge")
    return judge


class JudgmentRow(NamedTuple):
    """One judgment to write; ``item_id`` is a passage or an output pk (see upsert_judgments)."""

    topic_id: int
    subquestion_id: int
    item_id: int
    task: str
    rating: int | None
    rationale: str = ""


def upsert_judgments(judge: Judge, rows: Sequence[JudgmentRow], item: str) -> tuple[int, int]:
    """Insert or update one judge's judgments of passages (``item="passage"``) or outputs.

    Each (sub-question, item) must occur once in ``rows``. Stored rows whose rating and
    rationale are unchanged are left alone, so an identical re-import writes nothing; new rows
    go in through COPY. Returns (inserted, updated).
    """
    item_field = f"{item}_id"
    # Filtering on topics too lets the (judge, topic) index find the stored rows; the judge
    # alone would scan all of its judgments for every batch.
    stored = {
        (sq_id, item_id): (pk, rating, rationale)
        for sq_id, item_id, pk, rating, rationale in Judgment.objects.filter(
            judge=judge,
            topic_id__in={row.topic_id for row in rows},
            **{f"{item_field}__in": {row.item_id for row in rows}},
        ).values_list("subquestion_id", item_field, "id", "rating", "rationale")
    }
    now = timezone.now()
    new, changed = [], []
    for row in rows:
        match = stored.get((row.subquestion_id, row.item_id))
        if match is None:
            new.append((judge.pk, *row))
        elif (match[1], match[2]) != (row.rating, row.rationale):
            changed.append(
                Judgment(
                    pk=match[0],
                    task=row.task,
                    rating=row.rating,
                    rationale=row.rationale,
                    updated_at=now,
                )
            )
    columns = ["judge_id", "topic_id", "subquestion_id", item_field, "task", "rating", "rationale"]
    insert_rows(Judgment, columns, new)
    Judgment.objects.bulk_update(
        changed, ["task", "rating", "rationale", "updated_at"], batch_size=BATCH_SIZE
    )
    return len(new), len(changed)


def upsert_coverage_labels(labels: Sequence[CoverageLabel]) -> None:
    CoverageLabel.objects.bulk_create(
        labels,
        update_conflicts=True,
        unique_fields=["judge", "output"],
        update_fields=["coverage", "extra"],
        batch_size=BATCH_SIZE,
    )


def upsert_passage_qrels(rows: Sequence[tuple[int, int, int, str]]) -> None:
    """Write (topic pk, passage pk, grade, source) rows."""
    upsert_rows(
        PassageQrel,
        ["topic_id", "passage_id", "grade", "source"],
        rows,
        unique=["topic_id", "passage_id", "source"],
        update=["grade"],
    )
