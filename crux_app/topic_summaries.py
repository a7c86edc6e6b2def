"""One place per topic: what each method stored for a topic, summed up on the topic page.

The topic page names no method: a method declares a ``TopicSummary`` in its ``MethodConfig``
(crux_app.method_config). Its ``build`` reads stored rows only (never a model call) and returns the
method's own summary object, which says whether it is ``empty``; the method's template draws a
filled summary, and the shared partial draws an empty one with the job that fills it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Protocol

from django.urls import reverse

from crux_app.jobs.catalog import kind_label
from crux_app.registry import Registry

if TYPE_CHECKING:
    from crux_app.models import Topic


class Summary(Protocol):
    """What a method's ``build`` returns: its own dataclass, with at least these two."""

    @property
    def empty(self) -> bool: ...  # nothing stored for the topic yet

    @property
    def empty_note(self) -> str: ...  # why, when more than "no job ran" (may be "")


@dataclass(frozen=True)
class TopicSummary:
    key: str
    title: str
    build: Callable[..., Summary]  # build(topic), or build(topic, judge_id) (takes_judge)
    template: str  # draws a filled summary: gets ``summary``, ``topic`` and ``entry``
    job_kind: str  # the job kind that fills it (the empty state names its label)
    start_url_name: str  # that job's start page (takes the collection)
    page_url_name: str  # the method's page for this topic, or its collection page
    page_takes_topic: bool = True  # the page URL takes (collection, topic), else (collection)
    # True: ``build`` also takes the judge id the page asks for (the request's ``judge``, else
    # the user's remembered choice; None: the default), as build(topic, judge_id).
    takes_judge: bool = False
    # Keys of the summaries it comes after on the topic page (else: in declaration order).
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class ResolvedSummary:
    key: str
    title: str
    template: str
    summary: Any
    job_label: str
    start_url: str
    page_url: str

    @property
    def empty(self) -> bool:
        return bool(self.summary.empty)


TOPIC_SUMMARIES: Registry[TopicSummary] = Registry(
    "topic summary", (TopicSummary,), needs=attrgetter("after")
)


def registered_summaries() -> list[TopicSummary]:
    return TOPIC_SUMMARIES.ordered()


def summaries_for(topic: Topic, judge_id: int | None = None) -> list[ResolvedSummary]:
    """Every registered summary of the topic, built from stored rows, in order (``judge_id``:
    the judge the summaries that read one judge show; None: their default)."""
    resolved = []
    for entry in registered_summaries():
        summary = entry.build(topic, judge_id) if entry.takes_judge else entry.build(topic)
        page_args = (
            [topic.collection_id, topic.pk] if entry.page_takes_topic else [topic.collection_id]
        )
        resolved.append(
            ResolvedSummary(
                key=entry.key,
                title=entry.title,
                template=entry.template,
                summary=summary,
                job_label=kind_label(entry.job_kind),
                start_url=reverse(entry.start_url_name, args=[topic.collection_id]),
                page_url=reverse(entry.page_url_name, args=page_args),
            )
        )
    return resolved
