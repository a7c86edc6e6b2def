"""What the retEval page of one question shows: its gold answers and passages, its semi-gold
answers, and per (run, k) the retrieved passages, the RAG answer, every comparison with its
raw judge output, Recall@k, the verdict, the candidate category and the humans' categories."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from crux_app.models import GeneratedOutput, OutputContext, Passage, Topic
from crux_app.vocabulary import SEMI_GOLD_PREFIX
from evaluation.reteval.failures import confirmed, human_labels
from evaluation.reteval.models import Comparison, RetEvalResult
from evaluation.reteval.semi_gold import gold_passages


@dataclass(frozen=True)
class RetrievedRow:
    rank: int
    passage: Passage
    is_gold: bool


@dataclass(frozen=True)
class ResultView:
    result: RetEvalResult
    retrieved: list[RetrievedRow]
    comparisons: list[Comparison]
    humans: dict[str, str]
    confirmed: str | None


@dataclass(frozen=True)
class TopicPage:
    topic: Topic
    gold: list[Passage]
    semi_gold: list[GeneratedOutput]
    results: list[ResultView]


def topic_page(topic: Topic) -> TopicPage:
    gold = gold_passages([topic.pk])[topic.pk]
    gold_ids = {p.pk for p in gold}
    semi_gold = list(
        GeneratedOutput.objects.filter(
            topic=topic, kind=GeneratedOutput.Kind.ANSWER, system__startswith=SEMI_GOLD_PREFIX
        ).order_by("external_id")
    )
    results = list(
        RetEvalResult.objects.filter(topic=topic)
        .select_related("run", "rag_output")
        .order_by("run__name", "k", "judge")
    )
    output_ids = [r.rag_output_id for r in results]
    contexts: dict[int, list[RetrievedRow]] = defaultdict(list)
    rows = OutputContext.objects.filter(output_id__in=output_ids).select_related("passage")
    for ctx in rows.order_by("output_id", "position"):
        contexts[ctx.output_id].append(
            RetrievedRow(ctx.position + 1, ctx.passage, ctx.passage_id in gold_ids)
        )
    comparisons: dict[tuple[int, str, str], list[Comparison]] = defaultdict(list)
    for c in (
        Comparison.objects.filter(rag_output_id__in=output_ids)
        .select_related("reference")
        .order_by("reference__external_id")
    ):
        comparisons[(c.rag_output_id, c.judge, c.prompt_version)].append(c)
    labels = human_labels(output_ids)
    views = [
        ResultView(
            r,
            contexts[r.rag_output_id],
            comparisons[(r.rag_output_id, r.judge, r.prompt_version)],
            labels.get(r.rag_output_id, {}),
            confirmed(labels.get(r.rag_output_id, {})),
        )
        for r in results
    ]
    return TopicPage(topic, gold, semi_gold, views)
