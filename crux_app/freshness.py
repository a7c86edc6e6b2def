"""Whether the numbers a page shows are still moving: the time of its data, the jobs still
filling it (``crux_app.jobs.feeding``), and whether the data moved since the page was computed.

A page computed from a collection's rows renders ``{% data_freshness %}`` (templatetags
``job_banner``) with the collection as its view read it first (so the data version and time it
names are never newer than the numbers below). The banner asks the freshness door
(``crux_app.views.freshness``) again every few seconds while the tab is visible
(``static/js/freshness.js`` pauses it otherwise); once the data version moved it offers to
refresh the page's figures in place (the page's own URL, its figure area swapped by htmx).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django import forms
from django.urls import reverse
from django.utils import timezone

from crux_app.jobs.feeding import ActiveJob, active_jobs
from crux_app.models import Collection

# Data that changed this recently counts as still changing (a campaign's annotators submit every
# few seconds; no job says so).
LIVE_WINDOW = timedelta(minutes=10)
POLL_LIVE_S = 5  # the banner's next question while the data moves
POLL_IDLE_S = 30  # and while it does not (a job or a campaign may start)
HTML_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
PAGE_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class Freshness:
    """What the banner says about a page computed at data version ``shown_version``."""

    page: str
    area: str  # the id of the page's figure area, swapped on refresh
    topic_id: int | None
    shown_version: str  # hex
    shown_at: datetime  # the time of the page's data
    latest_at: datetime  # the time of the data now
    changed: bool  # the data moved since the page was computed
    jobs: list[ActiveJob]
    now: datetime

    @property
    def live(self) -> bool:
        """Whether the page says "as of": a job feeds it, or its data moved lately."""
        return bool(self.jobs) or self.changed or self.now - self.latest_at < LIVE_WINDOW

    @property
    def poll_seconds(self) -> int:
        return POLL_LIVE_S if self.live else POLL_IDLE_S

    @property
    def running(self) -> list[ActiveJob]:
        return [job for job in self.jobs if job.running]

    def url(self, collection_id: int) -> str:
        """The door the banner asks again, with what the page was computed from."""
        query = {
            "page": self.page,
            "area": self.area,
            "since": self.shown_version,
            "at": self.shown_at.isoformat(),
        }
        if self.topic_id is not None:
            query["topic"] = str(self.topic_id)
        return f"{reverse('data-freshness', args=[collection_id])}?{urlencode(query)}"


def freshness(
    page: str,
    collection: Collection,
    area: str,
    topic_id: int | None = None,
    *,
    shown_version: str | None = None,
    shown_at: datetime | None = None,
) -> Freshness:
    """The banner of ``page`` of ``collection`` (as its row is now); ``shown_version`` and
    ``shown_at``: what the page was computed from (default: the row's own, a page rendering)."""
    latest_version = collection.data_version.hex
    return Freshness(
        page=page,
        area=area,
        topic_id=topic_id,
        shown_version=shown_version or latest_version,
        shown_at=shown_at or collection.data_time,
        latest_at=collection.data_time,
        changed=shown_version is not None and shown_version != latest_version,
        jobs=active_jobs(page, collection.pk, topic_id),
        now=timezone.now(),
    )


class FreshnessQuery(forms.Form):
    """The banner's question: which page (a feeding key), its figure area's id, and the data
    version and time the page was computed from."""

    page = forms.RegexField(regex=PAGE_KEY, max_length=64)
    area = forms.RegexField(regex=HTML_ID, max_length=64)
    since = forms.RegexField(regex=r"^[0-9a-f]{32}$", max_length=32)
    at = forms.DateTimeField()
    topic = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
