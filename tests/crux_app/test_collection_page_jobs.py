"""The collection page's job list says where a job stands before it has counted its work:
"queued" while pending, "planning" while running with no total yet, never "0/0" (issue #34)."""

import pytest
from django.urls import reverse

from crux_app.models import Job
from tests.crux_app.factories import make_collection

pytestmark = pytest.mark.django_db


def test_a_job_without_a_total_says_queued_or_planning(researcher_client):
    collection = make_collection("jobs")
    Job.objects.create(kind="import", collection=collection)
    page = reverse("collection-detail", args=[collection.pk])

    def progress() -> list[str]:
        html = researcher_client.get(page).content.decode()
        start = html.index('id="collection-jobs"')
        cells = html[start:].split('<td class="job-progress">')[1:]
        return [cell.split("</td>")[0] for cell in cells]

    assert progress() == ['<span class="muted small">queued</span>']
    Job.objects.update(state=Job.State.RUNNING)
    assert progress() == ['<span class="muted small">planning</span>']
    Job.objects.update(total=9, done=3)
    (shown,) = progress()
    assert shown.endswith('<span class="small">3/9</span>') and "0/0" not in shown
    assert 'aria-label="Progress of job #' in shown


def test_the_jobs_pages_never_show_0_of_0(researcher_client):
    collection = make_collection("jobs")
    job = Job.objects.create(kind="import", collection=collection, state=Job.State.RUNNING)
    for url in (reverse("job-list"), reverse("job-detail", args=[job.pk])):
        html = researcher_client.get(url).content.decode()
        assert "0/0" not in html, url
        assert "planning" in html, url
