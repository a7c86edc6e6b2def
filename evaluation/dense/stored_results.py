"""Reading stored DENSE rows: the newest row per (topic, run, k), and one question's record."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from crux_app.models import Collection, Run
from evaluation.dense.models import DenseResult


def latest_results(
    collection: Collection, run: Run | None = None, k: int | None = None
) -> list[DenseResult]:
    """The newest stored row per (topic, run, k), ordered by topic, run and k."""
    rows: QuerySet[DenseResult] = DenseResult.objects.filter(topic__collection=collection)
    if run is not None:
        rows = rows.filter(run=run)
    if k is not None:
        rows = rows.filter(k=k)
    newest: dict[tuple[int, int, int], DenseResult] = {}
    for row in rows.select_related("topic", "run").order_by("created_at", "pk"):
        newest[(row.topic_id, row.run_id, row.k)] = row
    return sorted(newest.values(), key=lambda r: (r.topic.external_id, r.run.name, r.k))


def question_record(result: DenseResult) -> dict[str, Any]:
    """The command's record: question, DSE, W (row/column 0 = the original context), chunk
    labels in context order and the answers."""
    d = result.detail
    refinement = d.get("refinement") or None
    return {
        "topic": result.topic.external_id,
        "run": result.run.name,
        "k": result.k,
        "question": d.get("question", result.topic.request),
        "dse": result.dse,
        "uncertain": result.uncertain,
        "W": d.get("W", []),
        "labels": d.get("labels", []),
        "answers": {
            "original": result.answer,
            "rephrased": d.get("responses", [])[1:],
            "ablation": d.get("ablation_answers", {}),
            "final": result.final_answer,
        },
        "correct": result.correct,
        "final_correct": result.final_correct,
        "final_dse": result.final_dse,
        "passage_ids": d.get("passage_ids", []),
        "stop_reason": refinement.get("stop_reason") if refinement else None,
        "generator": result.generator,
        "nli": result.nli,
    }
