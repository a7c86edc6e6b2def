"""Where each vital nugget was lost, from stored rows: per (run, topic, vital nugget) its
category (``method.attribution``), per run the counts, and the evidence a drill-down shows.

- whether the answer states the nugget: the assignment judge's label for (nugget, answer);
- which passages support the nugget: a support judge's nugget-passage ratings at or above tau,
  stored as ``NuggetPassageRating`` or, for a nugget linked to a CRUX sub-question, CRUX's own
  passage ratings of that sub-question (answerability with nuggets as sub-questions);
- the run's top k: its ranking for the topic (the answer's references where it has none);
- the cited passages: every reference a sentence of the answer cites;
- where a sentence judge graded the answer's citations (``SentenceSupport``), which cited
  passage supports which sentence: a stated nugget is also delivered where a cited passage the
  support judge rates at least 1 for the nugget fully supports (grade 2) a sentence citing it
  (``method.attribution.sentence_backed`` holds the rule and why).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count

from crux_app.models import Collection, GeneratedOutput, Judge, Judgment, RunEntry
from crux_app.read_parameters import TAU, K
from evaluation.nuggets.method.attribution import (
    CATEGORIES,
    NuggetEvidence,
    ShareInterval,
    attribute,
    category_counts,
    is_stated,
    sentence_backed,
    wilson_interval,
)
from evaluation.nuggets.method.scores import VITAL
from evaluation.nuggets.models import (
    AnswerSentence,
    NuggetAssignment,
    NuggetPassageRating,
    SentenceSupport,
)

DEFAULT_K = K.default  # the read side's declared k and tau (crux_app.read_parameters)
DEFAULT_TAU = TAU.default  # CRUX's answerability threshold on the 0-5 rating scale


@dataclass(frozen=True)
class LossSettings:
    judge: Judge  # whose assignments say what the answer states
    support_judge: Judge | None  # whose nugget-passage ratings say what supports a nugget
    k: int = DEFAULT_K
    tau: float = DEFAULT_TAU
    sentence_judge: Judge | None = None  # whose sentence-citation grades back stated nuggets


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
    sentence_support: tuple[str, ...] = ()  # cited docids backing it through a sentence


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


def sentence_judges(collection: Collection) -> list[Judge]:
    """Judges with sentence-citation grades in the collection, most grades first."""
    return list(
        Judge.objects.filter(sentence_supports__sentence__output__collection=collection)
        .annotate(n=Count("sentence_supports"))
        .order_by("-n", "name")
    )


def _ratings(collection: Collection, settings: LossSettings) -> dict[int, dict[int, int]]:
    """Nugget pk -> passage pk -> the support judge's rating (the highest where both a nugget
    rating and a CRUX rating of its sub-question exist)."""
    ratings: dict[int, dict[int, int]] = defaultdict(dict)
    if settings.support_judge is None:
        return ratings
    nugget_rows = NuggetPassageRating.objects.filter(
        judge=settings.support_judge, nugget__topic__collection=collection
    ).values_list("nugget_id", "passage_id", "rating")
    crux_rows = Judgment.objects.filter(
        judge=settings.support_judge,
        task=Judgment.Task.PASSAGE_RATING,
        topic__collection=collection,
        subquestion__nuggets__isnull=False,
        rating__isnull=False,
    ).values_list("subquestion__nuggets__id", "passage_id", "rating")
    for rows in (nugget_rows, crux_rows):
        for nugget_id, passage_id, rating in rows:
            known = ratings[nugget_id].get(passage_id)
            ratings[nugget_id][passage_id] = rating if known is None else max(known, rating)
    return ratings


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


def _cited(
    outputs: list[GeneratedOutput], sentence_judge: Judge | None
) -> dict[int, list[dict[int, int | None]]]:
    """Output pk -> per sentence, the passage pks it cites with the sentence judge's grade
    (None where it has not graded the pair, or without a sentence judge)."""
    context: dict[int, dict[int, int]] = defaultdict(dict)
    for output in outputs:
        for item in output.context.all():
            context[output.pk][item.position] = item.passage_id
    grades: dict[tuple[int, int], int] = {}
    if sentence_judge is not None:
        graded = SentenceSupport.objects.filter(
            judge=sentence_judge, sentence__output__in=outputs
        ).values_list("sentence_id", "passage_id", "grade")
        grades = {(sentence_id, passage_id): g for sentence_id, passage_id, g in graded}
    cited: dict[int, list[dict[int, int | None]]] = defaultdict(list)
    sentences = AnswerSentence.objects.filter(output__in=outputs).values_list(
        "pk", "output_id", "citations"
    )
    for sentence_id, output_id, citations in sentences:
        passages = [context[output_id][i] for i in citations if i in context[output_id]]
        cited[output_id].append({p: grades.get((sentence_id, p)) for p in passages})
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
    top_k, cited, ratings = (
        _top_k(outputs, settings.k),
        _cited(outputs, settings.sentence_judge),
        _ratings(collection, settings),
    )
    for passage_ids in top_k.values():
        missing = [pk for pk in passage_ids if pk not in docids]
        docids.update(collection.passages.filter(pk__in=missing).values_list("pk", "external_id"))
    rows = []
    for a in assignments:
        output, nugget = a.output, a.nugget
        rated = ratings.get(nugget.pk, {})
        supporters = {p for p, rating in rated.items() if rating >= settings.tau}
        sentences = cited.get(output.pk, [])
        retrieved = [p for p in top_k.get((output.run_id, output.topic_id), []) if p in supporters]
        cited_ids = {p for graded in sentences for p in graded}
        cited_support = sorted(p for p in cited_ids if p in supporters)
        through_sentence = sorted(sentence_backed(sentences, rated))
        evidence = NuggetEvidence(
            is_stated(a.assignment), bool(cited_support), bool(retrieved), bool(through_sentence)
        )
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
                sentence_support=tuple(docids.get(p, str(p)) for p in through_sentence),
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


def evidence_json(settings: LossSettings) -> dict:
    """Which judges' labels decided the categories, and the settings (None: no such judge)."""
    return {
        "assignment_judge": settings.judge.name,
        "support_judge": settings.support_judge.name if settings.support_judge else None,
        "sentence_judge": settings.sentence_judge.name if settings.sentence_judge else None,
        "k": settings.k,
        "tau": settings.tau,
    }


def losses_json(per_run: list[RunLosses], settings: LossSettings | None = None) -> dict:
    """The command's and the API's JSON; with the settings, the evidence that was used."""
    runs = []
    for r in per_run:
        item: dict = {"run": r.run, "vital_nuggets": r.total, "counts": r.counts}
        if r.intervals:
            item["intervals"] = {
                c: None if i is None else {"share": i.share, "low": i.low, "high": i.high}
                for c, i in r.intervals.items()
            }
        runs.append(item)
    data: dict = {"categories": list(CATEGORIES), "runs": runs}
    if settings is not None:
        data["evidence"] = evidence_json(settings)
    return data


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
