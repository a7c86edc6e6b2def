"""CRUX on the topic page: each run's coverage of the topic, as the coverage matrix computes it
with its defaults (the LLM judge with the most ratings, tau 3, top-10), from stored judgments."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.urls import reverse

from crux_app.models import Topic
from crux_app.topic_summaries import TopicSummary
from evaluation.crux.job import KIND
from evaluation.crux.matrix.matrix import (
    DEFAULT_K,
    DEFAULT_TAU,
    JudgeChoice,
    RunChoice,
    build_matrix,
    matrix_options,
)
from evaluation.crux.matrix.stored import load_stored


@dataclass(frozen=True)
class RunCoverage:
    run: RunChoice
    value: float | None  # None exactly when ``reason`` says why
    n_covered: int
    n_answerable: int
    reason: str
    url: str  # the matrix with this run selected


@dataclass(frozen=True)
class CruxTopicSummary:
    judge: JudgeChoice | None  # whose ratings the coverage reads
    n_judges: int
    tau: int
    k: int
    runs: list[RunCoverage] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.judge is None

    @property
    def empty_note(self) -> str:
        return "No judge has rated this topic's passages yet."


def topic_summary(topic: Topic) -> CruxTopicSummary:
    options = matrix_options(topic)
    judge = options.default_judge
    summary = CruxTopicSummary(judge, len(options.judges), DEFAULT_TAU, DEFAULT_K)
    if judge is None:
        return summary
    matrix_url = reverse("crux-topic", args=[topic.collection_id, topic.pk])
    stored = load_stored(topic, [run.id for run in options.runs])  # one load for all runs
    for run in options.runs:
        matrix = build_matrix(topic, options, judge, run, DEFAULT_TAU, DEFAULT_K, stored)
        coverage = matrix.coverage
        if not matrix.has_oracle:
            reason = "no oracle set (no required passage)"
        else:
            reason = (coverage.reason if coverage is not None else None) or ""
        summary.runs.append(
            RunCoverage(
                run=run,
                value=coverage.value if coverage is not None else None,
                n_covered=matrix.n_covered,
                n_answerable=matrix.n_answerable,
                reason=reason,
                url=f"{matrix_url}?{urlencode({'judge': judge.id, 'run': run.id})}",
            )
        )
    return summary


# Registered on the topic page by registrations.py.
SUMMARY = TopicSummary(
    key="crux",
    title="CRUX coverage per run",
    order=10,
    build=topic_summary,
    template="evaluation/crux/_topic_summary.html",
    job_kind=KIND,
    start_url_name="crux-start",
    page_url_name="crux-topic",
)
