"""SCAAR on the topic page: for each analysed answer of the topic (its newest analysis), how many
of its sentences triggered a retrieval, against FLARE's count, and the score change."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import reverse

from crux_app.models import GeneratedOutput, Topic
from crux_app.topic_summaries import TopicSummary
from evaluation.scaar.job import KIND
from evaluation.scaar.models import ScaarAnalysis


@dataclass(frozen=True)
class AnalysedAnswer:
    system: str
    output: str  # the output's external id
    n_sentences: int
    n_triggers: int  # N_R: sentences whose words fell below SCAAR's thresholds
    flare_triggers: int
    score_metric: str
    score_delta: float | None  # after - before re-generating from the retrieved passages
    url: str  # the answer's SCAAR page


@dataclass(frozen=True)
class ScaarTopicSummary:
    n_outputs: int  # generated answers and reports of the topic
    answers: list[AnalysedAnswer] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.answers

    @property
    def empty_note(self) -> str:
        if self.n_outputs:
            return ""
        return (
            "SCAAR reads the topic's generated answers, and it has none yet (the answer "
            "generation and LLM-retEval jobs write them)."
        )


def topic_summary(topic: Topic) -> ScaarTopicSummary:
    n_outputs = GeneratedOutput.objects.filter(topic=topic).count()
    analyses = (
        ScaarAnalysis.objects.filter(topic=topic)
        .select_related("output")
        .defer("detail", "refined_text")
        .order_by("created_at", "pk")
    )
    newest = {a.output_id: a for a in analyses}  # the later analysis wins
    answers = [
        AnalysedAnswer(
            system=a.output.system,
            output=a.output.external_id,
            n_sentences=a.n_sentences,
            n_triggers=a.n_retrievals,
            flare_triggers=a.flare_retrievals,
            score_metric=a.score_metric,
            score_delta=a.score_delta,
            url=reverse("scaar-answer", args=[topic.collection_id, a.pk]),
        )
        for a in sorted(newest.values(), key=lambda a: (a.output.system, a.output.external_id))
    ]
    return ScaarTopicSummary(n_outputs, answers)


# Declared in the method's MethodConfig (apps.py): its card on the topic page.
SUMMARY = TopicSummary(
    key="scaar",
    title="SCAAR retrieval triggers",
    build=topic_summary,
    template="evaluation/scaar/_topic_summary.html",
    job_kind=KIND,
    start_url_name="scaar-start",
    page_url_name="scaar-collection",
    page_takes_topic=False,
)
