"""The Jobs list: which jobs a filter selects (kind, state, collection), one page of them, and
what each row says beside its progress (place on its queue, time left)."""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.db.models import QuerySet
from django.http import QueryDict

from crux_app.jobs.catalog import CATALOG
from crux_app.jobs.queue_workers import all_queue_workers
from crux_app.jobs.stall import stall_texts
from crux_app.jobs.status import Estimate, estimate, queue_of, queue_positions
from crux_app.list_paging import ListPage, ListPageForm, list_form, list_page
from crux_app.models import Job

JOBS_PER_PAGE = 50
MAX_COLLECTION_CHARS = 200


def _no_control_characters(value: str) -> None:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise forms.ValidationError("The collection may not contain control characters.")


def _kind_choices() -> list[tuple[str, str]]:
    kinds = sorted(CATALOG.values(), key=lambda k: k.label.lower())
    return [("", "Any kind"), *((k.name, k.label) for k in kinds)]


class JobFilterForm(forms.Form):
    """Narrow the Jobs list; every field optional, each value bounded (others are a 400)."""

    kind = forms.ChoiceField(required=False, choices=_kind_choices)
    state = forms.ChoiceField(required=False, choices=[("", "Any state"), *Job.State.choices])
    collection = forms.CharField(
        required=False,
        max_length=MAX_COLLECTION_CHARS,
        validators=[_no_control_characters],
        label="Collection",
        help_text="part of its name",
        widget=forms.TextInput(attrs={"type": "search", "size": 16}),
    )

    def jobs(self, visible: QuerySet[Job]) -> QuerySet[Job]:
        """The jobs of ``visible`` (those the asking account may see) the valid form selects,
        newest first."""
        jobs = visible.select_related("collection", "topic", "created_by")
        data = self.cleaned_data
        if data.get("kind"):
            jobs = jobs.filter(kind=data["kind"])
        if data.get("state"):
            jobs = jobs.filter(state=data["state"])
        if data.get("collection"):
            jobs = jobs.filter(collection__name__icontains=data["collection"])
        return jobs


@dataclass(frozen=True)
class JobRow:
    job: Job
    queue: str | None
    position: int | None  # place on its queue while pending
    estimate: Estimate | None  # time left while running
    stall: str = ""  # a running job whose shard's worker stopped: what holds it up
    may_change: bool = False  # the asking account may cancel it (not a viewer's)


@dataclass(frozen=True)
class JobListing:
    rows: list[JobRow]
    listing: ListPage
    query: str  # "?kind=…&page=…" of this view, for the table's polling ("" for none)
    polling: bool  # some job is unfinished: the table refreshes itself
    workers: list  # crux_app.jobs.status.Workers of every queue


def job_forms(data: QueryDict) -> tuple[JobFilterForm, ListPageForm]:
    """The filter and paging forms bound to the request's GET parameters."""
    return JobFilterForm(data), list_form(data)


def job_listing(
    filters: JobFilterForm, paging: ListPageForm, data: QueryDict, who: object
) -> JobListing:
    """One page of the jobs the valid ``filters`` select among those ``who`` (an account, a
    request) may see, with their queue places."""
    visible = Job.objects.visible_to(who)
    listing = list_page(paging, filters.jobs(visible), default_size=JOBS_PER_PAGE)
    jobs = listing.rows
    places = queue_positions(jobs)
    stalls = stall_texts(list(jobs), places)
    writable = set(
        Job.objects.visible_to(who, write=True)
        .filter(pk__in=[j.pk for j in jobs])
        .values_list("pk", flat=True)
    )
    rows = [
        JobRow(
            j,
            queue_of(j.kind),
            places.get(j.pk),
            estimate(j),
            stalls.get(j.pk, ""),
            may_change=j.pk in writable,
        )
        for j in jobs
    ]
    return JobListing(
        rows=rows,
        listing=listing,
        query=f"?{data.urlencode()}" if data else "",
        polling=visible.unfinished().exists(),
        workers=all_queue_workers(),
    )
