"""LLM-retEval on the topic page: per (run, k, judge) the stored Recall@k, the verdict, the
candidate failure category where the two disagree, and the humans' confirmed category."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import reverse
from django.utils.text import slugify

from crux_app.models import Topic
from crux_app.topic_summaries import TopicSummary
from crux_app.vocabulary import FAILURE_CATEGORIES
from evaluation.reteval.failures import confirmed, human_labels
from evaluation.reteval.job import KIND
from evaluation.reteval.models import RetEvalResult


@dataclass(frozen=True)
class VerdictRow:
    run: str
    k: int
    judge: str
    recall: float
    verdict: bool | None  # None: undefined (no Yes and an unparsable comparison)
    category: str  # "" where Recall@k and the verdict agree
    category_description: str
    confirmed: str | None  # the humans' majority category, if any
    url: str  # this result on the topic's LLM-retEval page


@dataclass(frozen=True)
class RetevalTopicSummary:
    rows: list[VerdictRow] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.rows

    @property
    def empty_note(self) -> str:
        return ""

    @property
    def n_disagreeing(self) -> int:
        return sum(1 for r in self.rows if r.category)


def topic_summary(topic: Topic) -> RetevalTopicSummary:
    page = reverse("reteval-topic", args=[topic.collection_id, topic.pk])
    results = list(
        RetEvalResult.objects.filter(topic=topic)
        .select_related("run")
        .only(
            "run__name", "k", "judge", "recall", "verdict", "category", "rag_output_id", "topic_id"
        )
        .order_by("run__name", "k", "judge")
    )
    labels = human_labels(r.rag_output_id for r in results)
    rows = [
        VerdictRow(
            run=r.run.name,
            k=r.k,
            judge=r.judge,
            recall=r.recall,
            verdict=r.verdict,
            category=r.category,
            category_description=FAILURE_CATEGORIES.get(r.category, ""),
            confirmed=confirmed(labels.get(r.rag_output_id, {})),
            url=f"{page}#result-{slugify(r.run.name)}-{r.k}",
        )
        for r in results
    ]
    return RetevalTopicSummary(rows)


# Declared in the method's MethodConfig (apps.py): its card on the topic page.
SUMMARY = TopicSummary(
    key="reteval",
    title="LLM-retEval verdicts",
    build=topic_summary,
    template="evaluation/reteval/_topic_summary.html",
    job_kind=KIND,
    start_url_name="reteval-start",
    page_url_name="reteval-topic",
)
