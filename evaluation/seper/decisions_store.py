"""Storing the entailment kernel's answer-equivalence decisions (``AnswerEquivalenceDecision``).

Two writers: the SePer job decides each generated answer of a QA topic (the texts that
answer-equivalence campaigns show annotators), and labelling a sampled response on the SePer
page records the decision already stored in its SePer row. Both go through the unique
(key, NLI model) constraint, so nothing is stored twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import transaction

from crux_app.models import GeneratedOutput, Topic
from evaluation.backends.base import NLIModel
from evaluation.seper.decisions import AnswerToDecide, decide_answers
from evaluation.seper.models import AnswerEquivalenceDecision, SeperScore, equivalence_key


def output_key(output: GeneratedOutput) -> str:
    """The equivalence key of a generated answer: its topic and its text."""
    return equivalence_key(output.topic_id, output.text)


def store_output_decisions(
    topics: Sequence[Topic], nli_id: str, load_nli: Callable[[], NLIModel]
) -> int:
    """Decide every generated answer of ``topics`` (QA topics: they have gold answers) that
    has no decision by ``nli_id`` yet; the NLI model is loaded only when one is missing.
    Returns the number of decisions stored."""
    by_topic = {t.pk: t for t in topics if t.gold_answers}
    outputs = GeneratedOutput.objects.filter(
        topic_id__in=list(by_topic), kind=GeneratedOutput.Kind.ANSWER
    ).order_by("topic_id", "pk")
    todo: dict[str, GeneratedOutput] = {}
    for output in outputs:
        if output.text.strip():
            todo.setdefault(output_key(output), output)
    stored = AnswerEquivalenceDecision.objects.filter(key__in=list(todo), nli=nli_id)
    for key in stored.values_list("key", flat=True):
        todo.pop(key, None)
    if not todo:
        return 0
    pending = list(todo.values())
    items = [
        AnswerToDecide(
            question=by_topic[o.topic_id].request,
            golds=tuple(str(g) for g in by_topic[o.topic_id].gold_answers),
            answer=o.text,
        )
        for o in pending
    ]
    decisions = decide_answers(items, load_nli())
    rows = [
        AnswerEquivalenceDecision(
            key=key,
            topic_id=output.topic_id,
            output=output,
            response_text=output.text,
            nli=nli_id,
            source=AnswerEquivalenceDecision.Source.OUTPUT,
            equivalent=decision.equivalent,
            matched_golds=decision.matched_golds,
            kernel=decision.kernel,
        )
        for (key, output), decision in zip(todo.items(), decisions, strict=True)
    ]
    with transaction.atomic():
        AnswerEquivalenceDecision.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def response_decision(score: SeperScore, index: int) -> tuple[bool, list[int]]:
    """The kernel's decision on sampled response ``index`` of a stored SePer row: its own gold
    matches when the row has them, else (rows scored before they were stored) its cluster's."""
    detail = score.detail
    matches = detail.get("response_matches")
    if matches is not None:
        row = matches[index]
        golds = [j for j, hit in enumerate(row) if hit]
        return bool(golds), golds
    cluster = next(c for c in detail["clusters"] if index in c["members"])
    return bool(cluster["matches_gold"]), list(cluster["matched_golds"])


def record_sample_decision(score: SeperScore, index: int) -> AnswerEquivalenceDecision:
    """The stored decision on sampled response ``index`` of ``score`` (created once)."""
    text = score.detail["responses"][index]["text"]
    equivalent, golds = response_decision(score, index)
    kernel = score.detail.get("kernel", [])
    decision, _ = AnswerEquivalenceDecision.objects.get_or_create(
        key=equivalence_key(score.topic_id, text, score.subquestion_id),
        nli=score.nli,
        defaults={
            "topic_id": score.topic_id,
            "subquestion_id": score.subquestion_id,
            "response_text": text,
            "source": AnswerEquivalenceDecision.Source.SAMPLE,
            "equivalent": equivalent,
            "matched_golds": golds,
            "kernel": kernel[index] if index < len(kernel) else [],
        },
    )
    return decision
