"""The failure browser: questions where Recall@k and LLM-retEval disagree, with their candidate
category, the humans' confirmed categories (annotation task 4), the counts per run and k, and
the campaign that asks humans to confirm them.

A human-confirmed category of a RAG answer is the most frequent category its annotators chose
(a tie is "undecided" and not counted); the latest label of a person counts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from annotation.campaigns.setup import SelectionOptions, create_campaign
from annotation.models import Assignment, Campaign
from annotation.queue.selection import EVERY
from annotation.task_types.names import FAILURE_CATEGORY
from crux_app.models import Collection, Run
from crux_app.vocabulary import FAILURE_CATEGORIES
from evaluation.reteval.method.verdicts import CATEGORIES
from evaluation.reteval.models import RetEvalResult
from evaluation.reteval.table import collection_results


def human_labels(output_ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """RAG answer pk -> annotator username -> category (the latest submission counts)."""
    rows = (
        Assignment.objects.failure_category_labels()
        .filter(output_id__in=list(output_ids))
        .order_by("submitted_at")
    )
    out: dict[int, dict[str, str]] = defaultdict(dict)
    for row in rows:
        category = (row["answer"] or {}).get("category")
        if category in CATEGORIES:
            out[row["output_id"]][row["annotator_name"]] = category
    return dict(out)


def confirmed(labels: dict[str, str]) -> str | None:
    """The single most frequent category of an item's human labels, else None."""
    counts = Counter(labels.values()).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


@dataclass(frozen=True)
class FailureRow:
    result: RetEvalResult
    humans: dict[str, str]
    confirmed: str | None


@dataclass
class CategoryCounts:
    run: str
    run_id: int
    k: int
    prelabels: dict[str, int] = field(default_factory=dict)
    confirmed: dict[str, int] = field(default_factory=dict)
    confirmed_items: int = 0


def failure_rows(
    collection: Collection, judge: str, run: Run | None = None, k: int | None = None
) -> list[FailureRow]:
    """Disagreeing (question, run, k) results, by run, k and question."""
    results = collection_results(collection).filter(judge=judge).disagreeing()
    if run is not None:
        results = results.filter(run=run)
    if k is not None:
        results = results.filter(k=k)
    results = list(
        results.select_related("topic", "run", "rag_output").order_by(
            "run__name", "k", "topic__external_id"
        )
    )
    labels = human_labels(r.rag_output_id for r in results)
    return [
        FailureRow(r, labels.get(r.rag_output_id, {}), confirmed(labels.get(r.rag_output_id, {})))
        for r in results
    ]


def category_counts(rows: Sequence[FailureRow]) -> list[CategoryCounts]:
    """Pre-label and confirmed category counts per (run, k)."""
    table: dict[tuple[str, int], CategoryCounts] = {}
    for row in rows:
        run, k = row.result.run, row.result.k
        counts = table.setdefault(
            (run.name, k),
            CategoryCounts(
                run.name, run.pk, k, dict.fromkeys(CATEGORIES, 0), dict.fromkeys(CATEGORIES, 0)
            ),
        )
        counts.prelabels[row.result.category] += 1
        if row.confirmed:
            counts.confirmed[row.confirmed] += 1
            counts.confirmed_items += 1
    return [table[key] for key in sorted(table)]


GUIDELINES = "\n".join(
    [
        "Each item is a question, its gold passages, the passages a retriever returned, the "
        "answer generated from them (RAG answer) and the answers generated from the gold "
        "passages (semi-gold answers). Recall@k and the LLM judge disagreed on it. Choose the "
        "category that explains the disagreement:",
        "",
        *(f"- **{c}**: {text}" for c, text in FAILURE_CATEGORIES.items()),
    ]
)


def create_failure_campaign(
    collection: Collection,
    judge: str,
    run: Run,
    k: int,
    user: AbstractBaseUser | None,
    name: str | None = None,
    overlap: int = 2,
) -> Campaign:
    """A 'failure_category' campaign over the disagreeing RAG answers of ``run`` at ``k``."""
    rows = failure_rows(collection, judge, run, k)
    output_ids = tuple(sorted({row.result.rag_output_id for row in rows}))
    if not output_ids:
        raise ValueError(
            f"run {run.name!r} has no question where Recall@{k} and LLM-retEval disagree"
        )
    stamp = timezone.now().strftime("%Y-%m-%d %H:%M:%S")
    name = name or f"Failure categories · {collection.name} · {run.name}@{k} · {stamp}"
    if Campaign.objects.filter(name=name).exists():
        raise ValueError(f"a campaign named {name!r} already exists; choose another name")
    campaign = Campaign(
        name=name,
        collection=collection,
        task_type=FAILURE_CATEGORY,
        guidelines_md=GUIDELINES,
        overlap=overlap,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    return create_campaign(campaign, SelectionOptions(mode=EVERY, output_ids=output_ids))
