"""The Jobs list: filters by kind, state and collection, 50 jobs a page, each pending job's place
on its queue and each running job's time left, the workers of every queue, and a bounded form
(garbage is a 400)."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from crux_app.jobs.heartbeat import record_heartbeat
from crux_app.models import Job
from tests.crux_app.factories import make_collection

pytestmark = pytest.mark.django_db

LIST = reverse("job-list")


def _rows(html: str) -> list[int]:
    """Job ids of the table's rows, in order."""
    return [int(n) for n in re.findall(r'<tr id="job-(\d+)"', html)]


def test_filters_by_kind_state_and_collection(researcher_client):
    duc, qa = make_collection("duc04"), make_collection("qa-small")
    a = Job.objects.create(kind="seper", collection=duc, state=Job.State.SUCCEEDED)
    b = Job.objects.create(kind="seper", collection=qa, state=Job.State.FAILED)
    c = Job.objects.create(kind="import", collection=qa, state=Job.State.SUCCEEDED)

    def shown(**query) -> list[int]:
        response = researcher_client.get(LIST, query)
        assert response.status_code == 200
        return _rows(response.content.decode())

    assert shown() == [c.pk, b.pk, a.pk]
    assert shown(kind="seper") == [b.pk, a.pk]
    assert shown(state="succeeded") == [c.pk, a.pk]
    assert shown(collection="qa") == [c.pk, b.pk]
    assert shown(kind="seper", state="failed", collection="QA-") == [b.pk]
    html = researcher_client.get(LIST, {"kind": "seper"}).content.decode()
    assert '<option value="seper" selected>' in html  # the form keeps its choice


def test_pages_of_fifty_keep_the_filter_and_the_polling_keeps_both(researcher_client, researcher):
    # Jobs of no collection: their starter's to see.
    Job.objects.bulk_create(
        Job(kind="seper", state=Job.State.SUCCEEDED, created_by=researcher) for _ in range(60)
    )
    Job.objects.create(kind="import", state=Job.State.PENDING, created_by=researcher)
    first = researcher_client.get(LIST, {"kind": "seper"}).content.decode()
    assert len(_rows(first)) == 50 and "1–50 of 60 jobs" in first
    assert 'href="?kind=seper&amp;page=2#jobs" rel="next"' in first
    second = researcher_client.get(LIST, {"kind": "seper", "page": 2}).content.decode()
    assert len(_rows(second)) == 10 and "51–60 of 60 jobs" in second
    table = reverse("job-table")
    assert f'hx-get="{table}?kind=seper&amp;page=2" hx-trigger="every 1s"' in second
    polled = researcher_client.get(table, {"kind": "seper", "page": 2}).content.decode()
    assert _rows(polled) == _rows(second)


@pytest.mark.parametrize(
    "query",
    [
        {"kind": "no_such_kind"},
        {"state": "exploded"},
        {"collection": "x" * 201},
        {"collection": "duc\x0004"},
        {"page": "abc"},
        {"page": "0"},
        {"size": "7"},
    ],
)
def test_garbage_parameters_are_a_400_not_a_500(researcher_client, query):
    for url in (LIST, reverse("job-table")):
        response = researcher_client.get(url, query)
        assert response.status_code == 400, (url, query)


def test_rows_show_the_queue_place_and_the_time_left(researcher_client, researcher):
    record_heartbeat("gpu@host", ["gpu"], 1)
    running = Job.objects.create(
        created_by=researcher,
        kind="generate_answers",
        state=Job.State.RUNNING,
        worker="gpu@host",
        done=10,
        total=40,
        running_since=timezone.now() - timedelta(seconds=200),
    )
    first = Job.objects.create(kind="seper", created_by=researcher)
    second = Job.objects.create(kind="dense", created_by=researcher)
    upload = Job.objects.create(kind="import", created_by=researcher)
    html = researcher_client.get(LIST).content.decode()
    for job, text in [
        (running, "about 10 min 0 s left"),
        (first, 'position 1 on <span class="mono">gpu</span>'),
        (second, 'position 2 on <span class="mono">gpu</span>'),
        (upload, 'position 1 on <span class="mono">cpu</span>'),
    ]:
        row = html.split(f'<tr id="job-{job.pk}"')[1].split("</tr>")[0]
        assert text in row, (job.kind, row)
        assert f'href="{reverse("job-cancel", args=[job.pk])}">Cancel…</a>' in row
    assert 'data-queue="gpu" data-slots="1" data-busy="1"' in html
    assert 'No worker is serving the <span class="mono">cpu</span> queue' in html
