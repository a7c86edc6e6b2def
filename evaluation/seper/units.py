"""What a SePer job scores: units (a QA topic's question, or a long-form topic's sub-question
with reference answers) and the contexts planned for each.

A QA topic (``import_qa``) is one unit: its request against its gold answers. A long-form
topic has no gold answers; each of its sub-questions that has reference answers is a unit of
its own, the references serving as gold answers. References are the sub-question's
``reference_answers`` and the supporting spans people highlighted for it: the rationale of a
human report-coverage judgment that found it answered (CRUX platform ``qlabels`` imported by
``import_crux_labeling``, and campaign task-1 labels mirrored as judgments).

The oracle context of a QA topic is its gold passages (``qa_gold`` qrels); that of a
sub-question is the passages people rated as answering it (a human passage rating >= the
CRUX threshold), best rated first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from crux_app.models import Judge, Judgment, PassageQrel, Run, SubQuestion, Topic
from crux_app.vocabulary import QA_GOLD_SOURCE
from evaluation.seper.engine import join_passages
from evaluation.seper.models import SeperScore

BASELINE_KEY = "none"  # the label of the no-context result in a plan
ANSWERS_AT = 3  # a human passage rating at or above this answers the sub-question (CRUX tau)
MAX_ORACLE_PASSAGES = 5  # a sub-question's oracle context stays a prompt-sized context


@dataclass(frozen=True)
class ScoringUnit:
    """One question scored by SePer: a topic's request, or one of its sub-questions."""

    topic: Topic
    subquestion: SubQuestion | None
    question: str
    golds: tuple[str, ...]

    @property
    def ident(self) -> tuple[int, int | None]:
        return (self.topic.pk, self.subquestion.pk if self.subquestion else None)


@dataclass(frozen=True)
class PlannedContext:
    """One context of a unit to score, with the columns of its row."""

    label: str  # the SeperContext key (BASELINE_KEY for no context)
    kind: str
    text: str
    passage_id: int | None = None
    run_id: int | None = None
    k: int | None = None


def _clean(texts: Iterable[object]) -> list[str]:
    """Non-blank texts, stripped, first occurrence kept, in order."""
    out = [str(t).strip() for t in texts if str(t).strip()]
    return list(dict.fromkeys(out))


def subquestion_references(topic_ids: Iterable[int]) -> dict[int, list[str]]:
    """Sub-question pk -> its reference answers (stored ones, then highlighted spans), for the
    real sub-questions of ``topic_ids`` that have any."""
    questions = SubQuestion.objects.filter(topic_id__in=list(topic_ids), is_placeholder=False)
    refs: dict[int, list[object]] = {
        pk: list(answers or []) for pk, answers in questions.values_list("pk", "reference_answers")
    }
    spans = (
        Judgment.objects.filter(
            subquestion_id__in=list(refs),
            task=Judgment.Task.REPORT_COVERAGE,
            judge__kind=Judge.Kind.HUMAN,
            rating__gte=1,
        )
        .exclude(rationale="")
        .order_by("subquestion_id", "pk")
        .values_list("subquestion_id", "rationale")
    )
    for pk, span in spans:
        refs[pk].append(span)
    cleaned = {pk: _clean(texts) for pk, texts in refs.items()}
    return {pk: texts for pk, texts in cleaned.items() if texts}


def units_for_topics(topics: Iterable[Topic]) -> list[ScoringUnit]:
    """The units of the topics, in the given topic order, sub-questions by position."""
    topics = list(topics)
    long_form = [t.pk for t in topics if not t.gold_answers]
    refs = subquestion_references(long_form)
    by_topic: dict[int, list[SubQuestion]] = {}
    for sq in SubQuestion.objects.filter(pk__in=list(refs)).order_by("topic_id", "position"):
        by_topic.setdefault(sq.topic_id, []).append(sq)
    units = []
    for topic in topics:
        if topic.gold_answers:
            golds = tuple(str(g) for g in topic.gold_answers)
            units.append(ScoringUnit(topic, None, topic.request, golds))
            continue
        for sq in by_topic.get(topic.pk, []):
            units.append(ScoringUnit(topic, sq, sq.text, tuple(refs[sq.pk])))
    return units


def scorable_topic_ids(topics) -> list[int]:
    """Topics of a queryset with gold answers or a sub-question with references."""
    with_golds = set(topics.exclude(gold_answers=[]).values_list("pk", flat=True))
    rest = list(topics.filter(gold_answers=[]).values_list("pk", flat=True))
    with_refs = set(
        SubQuestion.objects.filter(pk__in=list(subquestion_references(rest))).values_list(
            "topic_id", flat=True
        )
    )
    keep = with_golds | with_refs
    return [pk for pk in topics.order_by("external_id").values_list("pk", flat=True) if pk in keep]


def oracle_texts(unit: ScoringUnit) -> list[str]:
    """The unit's oracle passages' texts: gold passages, or passages people rated answering."""
    if unit.subquestion is None:
        gold = PassageQrel.objects.filter(topic=unit.topic, source=QA_GOLD_SOURCE, grade__gt=0)
        return [q.passage.text for q in gold.select_related("passage").order_by("passage_id")]
    rated = (
        Judgment.objects.filter(
            subquestion=unit.subquestion,
            task=Judgment.Task.PASSAGE_RATING,
            judge__kind=Judge.Kind.HUMAN,
            rating__gte=ANSWERS_AT,
            passage__has_text=True,
        )
        .order_by("-rating", "passage_id")
        .values_list("passage_id", "passage__text")
    )
    texts = dict(rated)  # one entry per passage (its best rating comes first)
    return list(texts.values())[:MAX_ORACLE_PASSAGES]


def plan_contexts(unit: ScoringUnit, run: Run | None, k: int) -> list[PlannedContext]:
    """The baseline, the run's top-k passages alone and together, and the oracle passages."""
    topic = unit.topic
    planned = [PlannedContext(BASELINE_KEY, SeperScore.ContextKind.NONE, "")]
    if run is not None:
        entries = (
            run.entries.filter(topic=topic)
            .order_by("rank", "line_order")
            .select_related("passage")[:k]
        )
        # Passages without text cannot be shown to the model; they are left out, not replaced.
        passages = [e.passage for e in entries if e.passage.has_text and e.passage.text.strip()]
        planned += [
            PlannedContext(f"p{p.pk}", SeperScore.ContextKind.PASSAGE, p.text, passage_id=p.pk)
            for p in passages
        ]
        if passages:
            text = join_passages([p.text for p in passages])
            planned.append(
                PlannedContext("run", SeperScore.ContextKind.RUN, text, run_id=run.pk, k=k)
            )
    oracle = join_passages(oracle_texts(unit))
    if oracle:
        planned.append(PlannedContext("oracle", SeperScore.ContextKind.ORACLE, oracle))
    return planned
