"""DENSE on the topic page: the newest stored result per (run, k) with its DSE, verdict, answer
correctness and how many chunks were certain, necessary or unnecessary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.urls import reverse

from crux_app.models import Topic
from crux_app.topic_summaries import TopicSummary
from evaluation.dense.job import KIND
from evaluation.dense.method.graph import CHUNK_LABELS
from evaluation.dense.models import DenseResult


@dataclass(frozen=True)
class DenseRow:
    run: str
    k: int
    dse: float
    uncertain: bool
    correct: bool | None
    labels: list[tuple[str, int]]  # (chunk label, count) in CHUNK_LABELS order, zeros left out
    url: str  # the topic's DENSE page showing this result


@dataclass(frozen=True)
class DenseTopicSummary:
    rows: list[DenseRow] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.rows

    @property
    def empty_note(self) -> str:
        return ""


def topic_summary(topic: Topic) -> DenseTopicSummary:
    page = reverse("dense-topic", args=[topic.collection_id, topic.pk])
    stored = (
        DenseResult.objects.filter(topic=topic)
        .order_by("created_at", "pk")
        .values("pk", "run__name", "k", "dse", "uncertain", "correct", "detail__labels")
    )
    newest = {(row["run__name"], row["k"]): row for row in stored}  # the later row wins
    rows = []
    for (run, k), row in sorted(newest.items()):
        counts = Counter(row["detail__labels"] or [])
        rows.append(
            DenseRow(
                run=run,
                k=k,
                dse=row["dse"],
                uncertain=row["uncertain"],
                correct=row["correct"],
                labels=[(label, counts[label]) for label in CHUNK_LABELS if counts[label]],
                url=f"{page}?{urlencode({'result': row['pk']})}",
            )
        )
    return DenseTopicSummary(rows)


# Declared in the method's MethodConfig (apps.py): its card on the topic page.
SUMMARY = TopicSummary(
    key="dense",
    title="DENSE uncertainty and chunk labels",
    build=topic_summary,
    template="evaluation/dense/_topic_summary.html",
    job_kind=KIND,
    start_url_name="dense-start",
    page_url_name="dense-topic",
)
