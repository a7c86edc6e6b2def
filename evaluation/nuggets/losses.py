"""Where each vital nugget was lost, from stored rows: per (run, topic, vital nugget) its
category (``method.attribution``), per run the counts, and the evidence a drill-down shows.

- whether the answer states the nugget: the assignment judge's label for (nugget, answer);
- which passages support the nugget: a support judge's nugget-passage ratings at or above tau,
  stored as ``NuggetPassageRating`` or, for a nugget linked to a CRUX sub-question, CRUX's own
  passage ratings of that sub-question (answerability with nuggets as sub-questions);
- the run's top k: its ranking for the topic (the answer's references where it has none);
- the cited passages: every reference a sentence of the answer cites.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count

from crux_app.models import Collection, GeneratedOutput, Judge, Judgment, RunEntry
from evaluation.nuggets.method.attribution import (
    CATEGORIES,
    NuggetEvidence,
    ShareInterval,
    attribute,
    category_counts,
    is_stated,
    wilson_interval,
)
from evaluation.nuggets.method.scores import VITAL
from evaluation.nuggets.models import AnswerSentence, NuggetAssignment, NuggetPassageRating

DEFAULT_K = 10
DEFAULT_TAU = 3  # CRUX's answerability threshold on the 0-5 rating scale


@dataclass(frozen=True)
class LossSettings:
    judge: Judge  # whose assignments say what the answer states
    support_judge: Judge | None  # whose nugget-passage ratings say what supports a nugget
    k: int = DEFAULT_K
    tau: int = DEFAULT_TAU


@dataclass(frozen=True)
class NuggetLoss:
    run: str
    topic: str
    topic_pk: int
    output_pk: int
    nugget_pk: int
    position: int
    text: str
    assignment: str
    category: str
    retrieved_support: tuple[str, ...]  # docids in the top k that support the nugget
    cited_support: tuple[str, ...]  # cited docids that support it


@dataclass
class RunLosses:
    run: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    intervals: dict[str, ShareInterval | None] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def cells(self) -> list[tuple[str, int, ShareInterval | None]]:
        """(category, count, interval of its share or None), in pipeline order."""
        return [(c, self.counts[c], self.intervals.get(c)) for c in CATEGORIES]


def support_judges(collection: Collection) -> list[Judge]:
    """Judges with nugget-passage ratings in the collection, most ratings first."""
    return list(
        Judge.objects.filter(nugget_ratings__nugget__topic__collection=collection)
        .annotate(n=Count("nugget_ratings"))
        .order_by("-n", "name")
    )


def _supporting(collection: Collection, settings: LossSettings) -> dict[int, set[int]]:
    """Nugget pk -> passage pks that support it."""
    support: dict[int, set[int]] = defaultdict(set)
    if settings.support_judge is None:
        return support
    ratings = NuggetPassageRating.objects.filter(
        judge=settings.support_judge,
        nugget__topic__collection=collection,
        rating__gte=settings.tau,
    ).values_list("nugget_id", "passage_id")
    for nugget_id, passage_id in ratings:
        support[nugget_id].add(passage_id)
    crux = Judgment.objects.filter(
        judge=settings.support_judge,
        task=Judgment.Task.PASSAGE_RATING,
        topic__collection=collection,
        subquestion__nuggets__isnull=False,
        rating__gte=settings.tau,
    ).values_list("subquestion__nuggets__id", "passage_id")
    for nugget_id, passage_id in crux:
        support[nugget_id].add(passage_id)
    return support


def _top_k(outputs: list[GeneratedOutput], k: int) -> dict[tuple[int, int], list[int]]:
    """(run pk, topic pk) -> the first k passage pks of the run's ranking."""
    pairs = {(o.run_id, o.topic_id) for o in outputs if o.run_id}
    ranked: dict[tuple[int, int], list[int]] = defaultdict(list)
    entries = RunEntry.objects.filter(
        run_id__in={run for run, _ in pairs}, topic_id__in={topic for _, topic in pairs}
    ).order_by("run_id", "topic_id", "rank", "line_order")
    for run_id, topic_id, passage_id in entries.values_list("run_id", "topic_id", "passage_id"):
        kept = ranked[(run_id, topic_id)]
        if len(kept) < k:
            kept.append(passage_id)
    return ranked


def _cited(outputs: list[GeneratedOutput]) -> dict[int, set[int]]:
    """Output pk -> the passage pks its sentences cite."""
    context: dict[int, dict[int, int]] = defaultdict(dict)
    for output in outputs:
        for item in output.context.all():
            context[output.pk][item.position] = item.passage_id
    cited: dict[int, set[int]] = defaultdict(set)
    sentences = AnswerSentence.objects.filter(output__in=outputs).values_list(
        "output_id", "citations"
    )
    for output_id, citations in sentences:
        cited[output_id].update(context[output_id][i] for i in citations if i in context[output_id])
    return cited


def nugget_losses(
    collection: Collection,
    settings: LossSettings,
    runs: list[str] | None = None,
    topic_pk: int | None = None,
) -> list[NuggetLoss]:
    """Every vital nugget the judge assigned, with its category, by run, topic and position."""
    assignments = NuggetAssignment.objects.filter(
        judge=settings.judge, output__collection=collection, nugget__importance=VITAL
    ).select_related("nugget", "output__run", "output__topic")
    if topic_pk is not None:
        assignments = assignments.filter(output__topic_id=topic_pk)
    if runs is not None:
        assignments = assignments.filter(output__run__name__in=runs)
    assignments = list(assignments)
    outputs = list(
        GeneratedOutput.objects.filter(pk__in={a.output_id for a in assignments}).prefetch_related(
            "context__passage"
        )
    )
    docids = {c.passage_id: c.passage.external_id for o in outputs for c in o.context.all()}
    top_k, cited, support = (
        _top_k(outputs, settings.k),
        _cited(outputs),
        _supporting(collection, settings),
    )
    for passage_ids in top_k.values():
        missing = [pk for pk in passage_ids if pk not in docids]
        docids.update(collection.passages.filter(pk__in=missing).values_list("pk", "external_id"))
    rows = []
    for a in assignments:
        output, nugget = a.output, a.nugget
        supporters = support.get(nugget.pk, set())
        retrieved = [p for p in top_k.get((output.run_id, output.topic_id), []) if p in supporters]
        cited_support = [p for p in sorted(cited.get(output.pk, set())) if p in supporters]
        evidence = NuggetEvidence(is_stated(a.assignment), bool(cited_support), bool(retrieved))
        rows.append(
            NuggetLoss(
                run=output.run.name if output.run else output.system,
                topic=output.topic.external_id,
                topic_pk=output.topic_id,
                output_pk=output.pk,
                nugget_pk=nugget.pk,
                position=nugget.position,
                text=nugget.text,
                assignment=a.assignment,
                category=attribute(evidence),
                retrieved_support=tuple(docids.get(p, str(p)) for p in retrieved),
                cited_support=tuple(docids.get(p, str(p)) for p in cited_support),
            )
        )
    rows.sort(key=lambda r: (r.run, r.topic, r.position))
    return rows


def run_losses(rows: list[NuggetLoss], human: bool) -> list[RunLosses]:
    """Counts per run; with a human judge (whose labels are a sample) a Wilson interval for the
    share of each category."""
    by_run: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_run[row.run].append(row.category)
    out = []
    for run in sorted(by_run):
        counts = category_counts(by_run[run])
        total = sum(counts.values())
        intervals = {c: wilson_interval(n, total) for c, n in counts.items()} if human else {}
        out.append(RunLosses(run, counts, intervals))
    return out


def losses_json(per_run: list[RunLosses]) -> dict:
    runs = []
    for r in per_run:
        item: dict = {"run": r.run, "vital_nuggets": r.total, "counts": r.counts}
        if r.intervals:
            item["intervals"] = {
                c: None if i is None else {"share": i.share, "low": i.low, "high": i.high}
                for c, i in r.intervals.items()
            }
        runs.append(item)
    return {"categories": list(CATEGORIES), "runs": runs}


def losses_figure(per_run: list[RunLosses]) -> dict:
    """Plotly spec: one stacked bar per run over its vital nuggets, a segment per category."""
    colours = dict(zip(CATEGORIES, ("#b42318", "#d67f00", "#7a4cc2", "#1a7f37"), strict=True))
    runs = [r.run for r in per_run]
    return {
        "data": [
            {
                "type": "bar",
                "name": category,
                "x": runs,
                "y": [r.counts[category] for r in per_run],
                "marker": {"color": colours[category]},
            }
            for category in CATEGORIES
        ],
        "layout": {
            "barmode": "stack",
            "height": 320,
            "margin": {"l": 50, "r": 10, "t": 10, "b": 60},
            "yaxis": {"title": {"text": "vital nuggets"}, "rangemode": "tozero"},
            "legend": {"orientation": "h", "y": 1.15},
        },
    }
