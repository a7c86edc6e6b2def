"""The leaderboard's LLM-retEval@k column: per run, the share of questions whose RAG answer
from the top-k matched a semi-gold answer, at the leaderboard's k, from stored results (the
judge with the most results in the collection). None where the run has no result at that k.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Avg, Case, Count, FloatField, Value, When

from evaluation.leaderboard.columns import RunColumn
from evaluation.reteval.table import collection_results, resolve_judge

if TYPE_CHECKING:
    from crux_app.models import Collection
    from evaluation.leaderboard.columns import LeaderboardParams

COLUMN_KEY = "llm_reteval"


def reteval_values(
    collection: Collection, params: LeaderboardParams, run_names: list[str]
) -> dict[str, float | None]:
    values: dict[str, float | None] = dict.fromkeys(run_names)
    judge = resolve_judge(collection, None)
    if judge is None or not isinstance(params.k, int):
        return values
    verdict = Case(
        When(verdict=True, then=Value(1.0)), default=Value(0.0), output_field=FloatField()
    )
    rows = (
        collection_results(collection)
        .filter(judge=judge, k=params.k, run__name__in=run_names, verdict__isnull=False)
        .values("run__name")
        .annotate(value=Avg(verdict))
    )
    for row in rows:
        values[row["run__name"]] = float(row["value"])
    return values


def reteval_k_topics(collection: Collection, run_names: list[str]) -> dict[int, dict[str, int]]:
    """Depth -> run name -> topics with a verdict (the rows ``reteval_values`` averages)."""
    judge = resolve_judge(collection, None)
    if judge is None:
        return {}
    rows = (
        collection_results(collection)
        .filter(judge=judge, run__name__in=run_names, verdict__isnull=False)
        .order_by()
        .values("k", "run__name")
        .annotate(topics=Count("topic", distinct=True))
    )
    out: dict[int, dict[str, int]] = {}
    for row in rows:
        out.setdefault(row["k"], {})[row["run__name"]] = row["topics"]
    return out


# Declared in RetevalConfig (apps.py).
COLUMN = RunColumn(
    key=COLUMN_KEY,
    label="LLM-retEval@{k}",
    values=reteval_values,
    k_topics=reteval_k_topics,
    description=(
        "Share of questions whose RAG answer from the run's top-k matches a semi-gold "
        "answer (CompareGPT judge), from stored LLM-retEval results"
    ),
)
