"""Which pending or running jobs are still filling a page's data, in words.

A page (a key below, or a method's own key) asks for the jobs that feed it; each job kind
declares the pages it feeds (``JobKind.feeds``, from its method's declaration), so this
module and the pages name no method. A job of one topic feeds that topic's pages and its
collection's; a job of a whole collection feeds every page of the collection.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q
from django.urls import reverse

from crux_app.jobs.catalog import CATALOG
from crux_app.jobs.names import job_params_text, job_title, job_unit
from crux_app.models import Job

# The cross-method pages (methods add their own keys, e.g. their collection page's).
LEADERBOARD = "leaderboard"
AGREEMENT = "agreement"


@dataclass(frozen=True)
class ActiveJob:
    """One pending or running job that feeds a page."""

    job_id: int
    kind: str
    name: str  # "DENSE #9"
    state: str
    done: int
    total: int
    unit: str
    params: str  # a short description of its parameters ("" when none)
    url: str  # the job's page

    @property
    def running(self) -> bool:
        return self.state == Job.State.RUNNING

    @property
    def text(self) -> str:
        """ "DENSE job #9 is running: 4 of 9 questions so far" (or waiting for a worker)."""
        label, _, number = self.name.rpartition(" #")
        who = f"{label} job #{number}"
        if not self.running:
            return f"{who} is waiting for a worker: nothing stored by it yet"
        if not self.total:
            return f"{who} is running: planning its {self.unit}"
        return f"{who} is running: {self.done} of {self.total} {self.unit} so far"


def feeding_kinds(page: str) -> list[str]:
    """The job kinds that declared they feed ``page``."""
    return sorted(name for name, kind in CATALOG.items() if page in kind.feeds)


def active_jobs(
    page: str, collection_id: int, topic_id: int | None = None, kinds: list[str] | None = None
) -> list[ActiveJob]:
    """Pending and running jobs of the collection (of the topic, or of its whole collection,
    when ``topic_id`` is given) whose kind feeds ``page`` (or is one of ``kinds``), oldest
    first."""
    wanted = feeding_kinds(page) if kinds is None else kinds
    if not wanted:
        return []
    jobs = Job.objects.unfinished().filter(collection_id=collection_id, kind__in=wanted)
    if topic_id is not None:
        jobs = jobs.filter(Q(topic_id=topic_id) | Q(topic__isnull=True))
    return [
        ActiveJob(
            job_id=job.pk,
            kind=job.kind,
            name=job_title(job),
            state=job.state,
            done=job.done,
            total=job.total,
            unit=job_unit(job),
            params=job_params_text(job),
            url=reverse("job-detail", args=[job.pk]),
        )
        for job in jobs.order_by("created_at", "pk")
    ]
