"""The LLM-retEval table of a collection from stored results: per run and k, Recall@k,
Precision@k, F1@k, LLM-retEval@k, lexical answer accuracy, failure counts and Spearman's rho
(the paper's Tables 1 and 2). The page, the ``reteval`` command and the leaderboard column
read it; nothing here runs a model.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Count

from crux_app.models import Collection, Run
from evaluation.reteval.method.prompts import PROMPT_VERSION
from evaluation.reteval.method.verdicts import CATEGORIES, KSummary, QuestionOutcome, summarise
from evaluation.reteval.models import RetEvalResult


class RetEvalInputError(ValueError):
    """A run, k or judge the collection has no LLM-retEval results for; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class RunSummary:
    run: str
    run_id: int
    summary: KSummary


@dataclass(frozen=True)
class RetEvalTable:
    collection: Collection
    judge: str | None
    prompt_version: str
    rows: list[RunSummary]


def collection_results(collection: Collection):
    return RetEvalResult.objects.filter(topic__collection=collection, prompt_version=PROMPT_VERSION)


def judges(collection: Collection) -> list[str]:
    """Judges with results in the collection, the one with the most results first."""
    rows = (
        collection_results(collection)
        .values("judge")
        .annotate(n=Count("pk"))
        .order_by("-n", "judge")
    )
    return [r["judge"] for r in rows]


def resolve_judge(collection: Collection, judge: str | None) -> str | None:
    known = judges(collection)
    if judge is None:
        return known[0] if known else None
    if judge not in known:
        listing = ", ".join(repr(j) for j in known) or "none"
        raise RetEvalInputError(
            "judge",
            f"judge {judge!r} has no LLM-retEval results in collection {collection.name!r}; "
            f"judges there: {listing}",
        )
    return judge


def resolve_runs(collection: Collection, names: Sequence[str] | None) -> list[Run]:
    runs = list(Run.objects.filter(collection=collection).order_by("name"))
    if not names:
        return runs
    by_name = {r.name: r for r in runs}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        listing = ", ".join(repr(n) for n in by_name) or "none"
        raise RetEvalInputError(
            "run",
            f"run {unknown[0]!r} does not exist in collection {collection.name!r}; "
            f"runs there: {listing}",
        )
    return [by_name[n] for n in dict.fromkeys(names)]


def outcomes_by_run_k(
    collection: Collection, judge: str, run_ids: Sequence[int], ks: Sequence[int] | None = None
) -> dict[tuple[int, int], list[QuestionOutcome]]:
    results = collection_results(collection).filter(judge=judge, run_id__in=run_ids)
    if ks:
        results = results.filter(k__in=ks)
    grouped: dict[tuple[int, int], list[QuestionOutcome]] = defaultdict(list)
    rows = results.order_by("run_id", "k", "topic__external_id").values_list(
        "run_id", "k", "recall", "precision", "f1", "verdict", "category", "answer_correct"
    )
    for run_id, k, recall, precision, f1, verdict, category, correct in rows:
        grouped[(run_id, k)].append(
            QuestionOutcome(recall, precision, f1, verdict, category, correct)
        )
    return grouped


def build_table(
    collection: Collection,
    runs: Sequence[str] | None = None,
    ks: Sequence[int] | None = None,
    judge: str | None = None,
) -> RetEvalTable:
    """One summary per (run, k): the given ks (empty rows where nothing is stored) or the
    stored ones."""
    if ks is not None and any(k < 1 for k in ks):
        raise RetEvalInputError("k", f"k must be integers >= 1, got {list(ks)}")
    chosen = resolve_runs(collection, runs)
    judge = resolve_judge(collection, judge)
    rows: list[RunSummary] = []
    if judge is None:
        return RetEvalTable(collection, None, PROMPT_VERSION, rows)
    grouped = outcomes_by_run_k(collection, judge, [r.pk for r in chosen], ks)
    for run in chosen:
        stored_ks = sorted({k for run_id, k in grouped if run_id == run.pk})
        wanted = sorted(set(ks)) if ks else stored_ks
        if not ks and not stored_ks and runs is None:
            continue  # a run never evaluated is left out of the default table
        for k in wanted:
            rows.append(RunSummary(run.name, run.pk, summarise(k, grouped.get((run.pk, k), []))))
    return RetEvalTable(collection, judge, PROMPT_VERSION, rows)


def row_dict(row: RunSummary) -> dict[str, object]:
    """A flat record for JSON and CSV."""
    s = row.summary
    out: dict[str, object] = {
        "run": row.run,
        "k": s.k,
        "questions": s.n_questions,
        "recall": s.recall,
        "precision": s.precision,
        "f1": s.f1,
        "llm_reteval": s.reteval,
        "undefined_verdicts": s.undefined_verdicts,
        "answer_accuracy_lexical": s.answer_accuracy,
        "disagreements": s.disagreements,
        "recall_failures": s.recall_failures,
        "reteval_failures": s.reteval_failures,
    }
    for name, corr in (("all", s.spearman_all), ("refined", s.spearman_refined)):
        out[f"spearman_{name}"] = corr.rho
        out[f"spearman_{name}_p"] = corr.p_value
        out[f"spearman_{name}_n"] = corr.n
        out[f"spearman_{name}_note"] = corr.reason
    for category in CATEGORIES:
        out[f"category_{category}"] = s.categories.get(category, 0)
    return out


def table_dict(table: RetEvalTable) -> dict[str, object]:
    return {
        "collection": table.collection.name,
        "judge": table.judge,
        "prompt_version": table.prompt_version,
        "rows": [row_dict(r) for r in table.rows],
    }


def table_figure(table: RetEvalTable) -> dict[str, object] | None:
    """A plotly spec: Recall@k and LLM-retEval@k over k, one pair of lines per run."""
    by_run: dict[str, list[RunSummary]] = defaultdict(list)
    for row in table.rows:
        by_run[row.run].append(row)
    data = []
    for run, rows in by_run.items():
        ks = [r.summary.k for r in rows]
        for label, values, dash in (
            ("Recall", [r.summary.recall for r in rows], "dot"),
            ("LLM-retEval", [r.summary.reteval for r in rows], "solid"),
        ):
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": f"{run} · {label}@k",
                    "x": ks,
                    "y": values,
                    "line": {"dash": dash},
                }
            )
    if not data:
        return None
    layout = {
        "height": 320,
        "margin": {"l": 50, "r": 20, "t": 20, "b": 40},
        "xaxis": {"title": {"text": "k"}, "type": "category"},
        "yaxis": {"range": [0, 1.05], "title": {"text": "score"}},
    }
    return {"data": data, "layout": layout}
