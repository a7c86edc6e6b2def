"""CRUX on the topic page: each run's coverage of the topic, as the coverage matrix computes it
(tau 3, top-10) under the judge the page asks for (else the user's remembered choice, else the
topic's default judge: ``crux_app.judge_choice``), from stored judgments; with the judges to
choose from and the warnings when that judge's ratings or the runs' coverages say nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

import numpy as np
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
from evaluation.crux.matrix.stored import UNPARSABLE, judgment_array, load_stored, rating_rows
from evaluation.shared.degenerate import JudgeWarning, rating_warnings, tied_runs


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
    judges: list[JudgeChoice] = field(default_factory=list)  # the selector's choices
    warnings: list[JudgeWarning] = field(default_factory=list)  # degenerate judge or ties

    @property
    def empty(self) -> bool:
        return self.judge is None

    @property
    def empty_note(self) -> str:
        return "No judge has rated this topic's passages yet."


def judge_rating_warnings(topic: Topic, ratings: np.ndarray, judge: JudgeChoice) -> list:
    """Nearly constant or unparsable ratings of the shown judge on this topic."""
    rows = judgment_array(topic, ratings)
    values = rows[rows[:, 0] == judge.id][:, 3]
    parsed = values[values != UNPARSABLE]
    levels, counts = np.unique(parsed, return_counts=True)
    histogram = {float(v): int(c) for v, c in zip(levels, counts, strict=True)}
    n_unparsable = int((values == UNPARSABLE).sum())
    return rating_warnings(judge.name, histogram, n_unparsable, f"on topic {topic.external_id}")


def topic_summary(topic: Topic, judge_id: int | None = None) -> CruxTopicSummary:
    """Each run's coverage under ``judge_id`` when it rated the topic, else under the topic's
    default judge (``crux_app.judge_choice.default_judge``)."""
    ratings = rating_rows(topic)
    options = matrix_options(topic, ratings)
    judge = options.preferred_judge([judge_id])
    summary = CruxTopicSummary(
        judge, len(options.judges), DEFAULT_TAU, DEFAULT_K, judges=options.judges
    )
    if judge is None:
        return summary
    summary.warnings.extend(judge_rating_warnings(topic, ratings, judge))
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
    values = {r.run.name: r.value for r in summary.runs}
    tie = tied_runs(f"Coverage@{DEFAULT_K}", values, judge=judge.name)
    if tie is not None:
        summary.warnings.append(tie)
    return summary


# Declared in the method's MethodConfig (apps.py): its card on the topic page.
SUMMARY = TopicSummary(
    key="crux",
    title="CRUX coverage per run",
    build=topic_summary,
    template="evaluation/crux/_topic_summary.html",
    job_kind=KIND,
    start_url_name="crux-start",
    page_url_name="crux-topic",
    takes_judge=True,
)
