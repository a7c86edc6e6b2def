"""The nugget method on the topic page: per run, where the topic's vital nuggets were lost
(the default judges, k and tau of the nugget page), linked to the topic's drill-down."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from crux_app.models import Topic
from crux_app.topic_summaries import TopicSummary
from evaluation.nuggets.losses import nugget_losses
from evaluation.nuggets.method.attribution import CATEGORIES, category_counts
from evaluation.nuggets.models import Nugget
from evaluation.nuggets.page import choose
from evaluation.nuggets.params import LossParams


@dataclass(frozen=True)
class NuggetTopicSummary:
    judge: str = ""
    rows: list[tuple[str, list[int]]] = field(default_factory=list)  # run, counts in order
    nuggets: int = 0

    @property
    def categories(self) -> tuple[str, ...]:
        return CATEGORIES

    @property
    def empty(self) -> bool:
        return not self.rows

    @property
    def empty_note(self) -> str:
        if self.nuggets:
            return f"{self.nuggets} nuggets, no assignments of their vital ones yet"
        return ""


def topic_summary(topic: Topic) -> NuggetTopicSummary:
    nuggets = Nugget.objects.filter(topic=topic).count()
    choice = choose(topic.collection, {}, LossParams())
    if choice.settings is None:
        return NuggetTopicSummary(nuggets=nuggets)
    by_run: dict[str, list[str]] = defaultdict(list)
    for row in nugget_losses(topic.collection, choice.settings, topic_pk=topic.pk):
        by_run[row.run].append(row.category)
    rows = [(run, list(category_counts(c).values())) for run, c in sorted(by_run.items())]
    return NuggetTopicSummary(choice.settings.judge.name, rows, nuggets)


# Declared in NuggetsConfig (apps.py).
SUMMARY = TopicSummary(
    key="nuggets",
    title="Where vital nuggets were lost",
    build=topic_summary,
    template="evaluation/nuggets/_topic_summary.html",
    job_kind="nuggets",
    start_url_name="nuggets-start",
    page_url_name="nuggets-topic",
)
