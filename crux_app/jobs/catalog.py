"""The kinds of job the app can start, each bound by name to the Celery task that runs it.

The catalog names no method: each method declares its kinds in its ``MethodConfig``
(crux_app.method_config). A kind's task is named after the kind (``job_task_name``: the app's
``tasks.py`` registers it under that name), not imported, so the web process never imports model
code; it goes to the kind's ``queue`` (crux_app.jobs.routing, settings' CELERY_TASK_ROUTES).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal

from django.urls import reverse

from crux_app.registry import Registry

if TYPE_CHECKING:
    from crux_app.models import Collection, Job, Run, Topic

    from .cost import WorkLeft

# (its demo collection's first run, first topic) -> (params, topic or None).
DemoJob = Callable[["Run", "Topic"], tuple[dict[str, Any], "Topic | None"]]
# A job -> the URL of the page its results fill (None when it has none, e.g. no collection).
ResultsUrl = Callable[["Job"], "str | None"]
# A job's params -> words (its name's variant, or a short description of its parameters).
ParamsText = Callable[[Mapping[str, Any]], str]
# (a job's params, its collection, its topic or None) -> what the job would still do, counted
# without loading a model (``crux_app.jobs.estimate``); raises ValueError for refused params.
EstimateWork = Callable[[Mapping[str, Any], "Collection | None", "Topic | None"], "WorkLeft"]


def job_task_name(kind: str) -> str:
    """The name of the Celery task that runs ``kind``'s jobs (``@shared_task(name=...)``)."""
    return f"jobs.{kind}"


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str
    description: str = ""
    queue: Literal["gpu", "cpu"] = "cpu"  # the Celery queue its task is sent to
    # The kinds whose results this kind's jobs need (they run first when queued together, as
    # the demo queues its jobs on one worker); kinds not installed are ignored. A kind names
    # what it needs, never what comes after it.
    needs: tuple[str, ...] = ()
    # "slow": its demo job takes minutes on a CPU; the demo queues the quick ones first.
    demo_pace: Literal["quick", "slow"] = "quick"
    demo: DemoJob | None = None  # a small job the demo queues
    demo_collection: str = ""  # the demo collection it runs on ("": the demo QA collection)
    results_url: ResultsUrl | None = None  # the page the job fills, linked from the job's page
    results_label: str | Callable[[Job], str] = "Results"  # that link's text (or its maker)
    # The pages (keys of ``crux_app.jobs.feeding``) whose data a job of this kind fills: they
    # say so while one is pending or running.
    feeds: tuple[str, ...] = ()
    unit: str = "items"  # what the job's done / total count, e.g. "questions"
    # The job's name from its params when the kind has variants ("Judge answerability
    # (distribution)"); None: ``label``.
    title: ParamsText | None = None
    # A short description of a job's parameters ("bm25 top-3, 5 samples"); None: none.
    describe: ParamsText | None = None
    # Counts the items a job would still do and its prompt tokens, for the cost estimate shown
    # before it starts; None: no estimate.
    estimate_work: EstimateWork | None = None

    @property
    def task_name(self) -> str:
        return job_task_name(self.name)


@dataclass(frozen=True)
class ResultsLink:
    url: str
    label: str


class UnknownJobKind(ValueError):
    """A job kind that is not in the catalog."""


CATALOG: Registry[JobKind] = Registry(
    "job kind",
    (JobKind,),
    key=attrgetter("name"),
    needs=attrgetter("needs"),
    rank=lambda kind: kind.demo_pace == "slow",
)


def get_kind(name: str) -> JobKind:
    try:
        return CATALOG[name]
    except KeyError:
        known = ", ".join(sorted(CATALOG))
        raise UnknownJobKind(f"unknown job kind {name!r}; known kinds: {known}") from None


def kind_label(name: str) -> str:
    """The kind's human label, or its raw name for kinds no longer in the catalog."""
    kind = CATALOG.get(name)
    return kind.label if kind else name


def demo_kinds() -> list[JobKind]:
    """Kinds with a demo job, in queue order: after the kinds they need, the quick before the
    slow, else as declared."""
    return [kind for kind in CATALOG.ordered() if kind.demo]


def results_link(job: Job) -> ResultsLink | None:
    """The page the job's kind says the job fills (None: the kind names none, or not for it)."""
    kind = CATALOG.get(job.kind)
    if kind is None or kind.results_url is None:
        return None
    url = kind.results_url(job)
    if not url:
        return None
    label = kind.results_label
    return ResultsLink(url, label(job) if callable(label) else label)


def collection_page(url_name: str, topic_url_name: str | None = None) -> ResultsUrl:
    """A ``results_url``: the job's collection's page ``url_name`` (its one argument the
    collection's pk), or for a job of one topic that topic's ``topic_url_name`` page (the
    collection's and the topic's pk); None for a job without a collection."""

    def url(job: Job) -> str | None:
        if job.collection_id is None:
            return None
        if topic_url_name and job.topic_id is not None:
            return reverse(topic_url_name, args=[job.collection_id, job.topic_id])
        return reverse(url_name, args=[job.collection_id])

    return url
