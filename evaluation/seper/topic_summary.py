"""SePer on the topic page: the topic's stored SePer_S without context and Delta-SePer_S of each
context (a run's top-k, the gold passages, single passages), at its latest settings."""

from __future__ import annotations

from dataclasses import dataclass, field

from crux_app.models import Topic
from crux_app.topic_summaries import TopicSummary
from evaluation.seper.job import KIND
from evaluation.seper.models import SeperScore
from evaluation.seper.page import context_label


@dataclass(frozen=True)
class ContextDelta:
    label: str
    kind: str
    seper_s: float
    delta_s: float | None  # against no context; None for the no-context row itself


@dataclass(frozen=True)
class SeperTopicSummary:
    has_gold: bool
    generator: str = ""
    nli: str = ""
    baseline: float | None = None  # SePer_S without context
    contexts: list[ContextDelta] = field(default_factory=list)  # run top-k and gold passages
    n_passages: int = 0  # single passages scored
    n_helping: int = 0  # of which Delta-SePer_S > 0
    best: ContextDelta | None = None  # the single passage with the largest Delta-SePer_S
    worst: ContextDelta | None = None
    n_subquestions: int = 0  # sub-questions scored against their reference answers

    @property
    def empty(self) -> bool:
        return self.baseline is None and not self.contexts and not self.n_subquestions

    @property
    def empty_note(self) -> str:
        if self.has_gold:
            return ""
        return "SePer scores answers against the topic's gold answers; this topic has none."


def topic_summary(topic: Topic) -> SeperTopicSummary:
    has_gold = bool(topic.gold_answers)
    rows = SeperScore.objects.filter(topic=topic).defer("detail")
    latest = rows.order_by("-created_at", "-pk").first()
    if latest is None:
        return SeperTopicSummary(has_gold)
    same = rows.filter(generator=latest.generator, nli=latest.nli, params=latest.params)
    shown = list(
        same.filter(subquestion__isnull=True).select_related("passage", "run").order_by("pk")
    )
    n_subquestions = same.filter(subquestion__isnull=False).values("subquestion").distinct()
    deltas = [ContextDelta(context_label(r), r.context_kind, r.seper_s, r.delta_s) for r in shown]
    baseline = next((d.seper_s for d in deltas if d.kind == SeperScore.ContextKind.NONE), None)
    passages = [
        d for d in deltas if d.kind == SeperScore.ContextKind.PASSAGE and d.delta_s is not None
    ]
    ranked = sorted(passages, key=lambda d: d.delta_s or 0.0)
    return SeperTopicSummary(
        has_gold=has_gold,
        generator=latest.generator,
        nli=latest.nli,
        baseline=baseline,
        contexts=[
            d
            for d in deltas
            if d.kind in (SeperScore.ContextKind.RUN, SeperScore.ContextKind.ORACLE)
        ],
        n_passages=len(passages),
        n_helping=sum(1 for d in passages if (d.delta_s or 0.0) > 0),
        best=ranked[-1] if ranked else None,
        worst=ranked[0] if len(ranked) > 1 else None,
        n_subquestions=n_subquestions.count(),
    )


# Declared in the method's MethodConfig (apps.py): its card on the topic page.
SUMMARY = TopicSummary(
    key="seper",
    title="SePer / Delta-SePer",
    build=topic_summary,
    template="evaluation/seper/_topic_summary.html",
    job_kind=KIND,
    start_url_name="seper-start",
    page_url_name="seper-topic",
)
