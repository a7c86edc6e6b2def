"""Jobs pages: list with polling table, start form, detail with errors, retry, access."""

import pytest
from django.urls import reverse
from django.utils import timezone

from crux_app.models import Job
from evaluation.answers.job import AnswerJobParams, run_answer_job
from tests.crux_app.job_collections import make_answer_collection
from tests.evaluation.backends.fake_generator import RecordingGenerator

pytestmark = pytest.mark.django_db


def _failed_job(collection=None, owner=None) -> Job:
    job = Job.objects.create(
        kind="generate_answers",
        collection=collection,
        created_by=owner,  # a job of no collection is its starter's to see
        state=Job.State.FAILED,
        done=1,
        total=4,
        started_at=timezone.now() - timezone.timedelta(seconds=75),
        finished_at=timezone.now(),
        message="1 of 2 batches failed",
        errors=[
            {
                "message": "RuntimeError: CUDA out of memory",
                "batch": 1,
                "try_number": 3,
                "job_attempt": 1,
                "at": "2025-01-01T00:00:00",
                "traceback": 'Traceback (most recent call last):\n  File "gen.py"\nRuntimeError',
            }
        ],
    )
    return job


def test_list_shows_jobs_with_state_progress_duration_and_errors(researcher_client):
    data = make_answer_collection(n_topics=1)
    job = _failed_job(data.collection)
    response = researcher_client.get(reverse("job-list"))
    html = response.content.decode()
    assert response.status_code == 200
    assert f'id="job-{job.pk}"' in html
    assert "Generate answers" in html and "qa-small" in html
    assert '<span class="badge failed">Failed</span>' in html
    assert 'aria-valuenow="1"' in html and "1/4" in html
    assert "1 min 15 s" in html
    assert '<td class="num">1</td>' in html  # errors count
    assert 'hx-trigger="every 1s"' not in html  # nothing unfinished: no polling


def test_table_polls_while_a_job_is_unfinished_and_stops_after(researcher_client, researcher):
    job = Job.objects.create(
        kind="generate_answers", state=Job.State.RUNNING, done=2, total=8, created_by=researcher
    )
    html = researcher_client.get(reverse("job-list")).content.decode()
    assert f'hx-get="{reverse("job-table")}" hx-trigger="every 1s" hx-swap="outerHTML"' in html

    partial = researcher_client.get(reverse("job-table"), HTTP_HX_REQUEST="true")
    body = partial.content.decode()
    assert body.lstrip().startswith('<div id="job-table" hx-get=')
    assert "<html" not in body and "2/8" in body

    Job.objects.filter(pk=job.pk).update(state=Job.State.SUCCEEDED, done=8)
    body = researcher_client.get(reverse("job-table"), HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in body and "8/8" in body


def test_detail_shows_params_errors_and_retry_for_failed_jobs(researcher_client):
    data = make_answer_collection(n_topics=1)
    job = _failed_job(data.collection)
    job.params = {"run": "bm25", "k": 5}
    job.save()
    html = researcher_client.get(reverse("job-detail", args=[job.pk])).content.decode()
    assert "RuntimeError: CUDA out of memory" in html
    assert "batch 1, try 3" in html
    assert "Traceback" not in html and "gen.py" not in html  # staff only (below)
    assert f'action="{reverse("job-retry", args=[job.pk])}"' in html
    assert "csrfmiddlewaretoken" in html
    assert "<th>k</th>" in html and "bm25" in html
    assert 'hx-trigger="every 1s"' not in html


def test_only_staff_see_an_errors_traceback_with_its_server_paths(researcher_client, researcher):
    job = _failed_job(owner=researcher)
    url = reverse("job-detail", args=[job.pk])
    researcher_page = researcher_client.get(url).content.decode()
    assert "RuntimeError: CUDA out of memory" in researcher_page
    assert "gen.py" not in researcher_page
    partial = researcher_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "CUDA out of memory" in partial and "gen.py" not in partial
    researcher.is_staff = True
    researcher.save(update_fields=["is_staff"])
    staff_page = researcher_client.get(url).content.decode()
    assert "RuntimeError: CUDA out of memory" in staff_page
    assert "Traceback (most recent call last)" in staff_page and "gen.py" in staff_page
    # The live partial (htmx polling) follows the same rule.
    partial = researcher_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "gen.py" in partial


def test_detail_status_polls_while_running_and_serves_a_partial(researcher_client, researcher):
    job = Job.objects.create(
        kind="generate_answers", state=Job.State.RUNNING, done=1, total=3, created_by=researcher
    )
    url = reverse("job-detail", args=[job.pk])
    html = researcher_client.get(url).content.decode()
    assert f'hx-get="{url}" hx-trigger="every 1s"' in html
    assert "Retry" not in html
    partial = researcher_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section class="card" id="job-status"')
    assert "1/3" in partial and "<html" not in partial


def test_retry_post_sends_the_job_again(
    researcher_client, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    data = make_answer_collection(n_topics=2)
    params = AnswerJobParams(run_id=data.run.pk, k=1).as_params(data.run)
    job = Job.objects.create(kind="generate_answers", params=params, collection=data.collection)
    run_answer_job(job, RecordingGenerator)  # every answer stored: the re-sent task needs no model
    Job.objects.filter(pk=job.pk).update(state=Job.State.FAILED)
    old_task_id = job.celery_task_id

    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post(reverse("job-retry", args=[job.pk]))

    assert response.status_code == 302
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED and job.attempts == 2
    assert job.celery_task_id != old_task_id


def test_retry_of_a_running_job_is_refused_with_a_message(researcher_client, researcher):
    job = Job.objects.create(
        kind="generate_answers", state=Job.State.RUNNING, created_by=researcher
    )
    response = researcher_client.post(reverse("job-retry", args=[job.pk]), follow=True)
    assert (
        f"job #{job.pk} is running; only finished jobs can be retried" in response.content.decode()
    )
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING


def test_job_links_include_lists_a_topics_jobs(researcher_client):
    from django.template.loader import render_to_string

    a = make_answer_collection("qa-a", n_topics=2)
    b = make_answer_collection("qa-b", n_topics=1)
    whole = Job.objects.create(kind="generate_answers", collection=a.collection)
    one = Job.objects.create(kind="generate_answers", collection=a.collection, topic=a.topics[0])
    other_topic = Job.objects.create(
        kind="generate_answers", collection=a.collection, topic=a.topics[1]
    )
    elsewhere = Job.objects.create(kind="generate_answers", collection=b.collection)

    assert set(Job.objects.for_topic(a.topics[0])) == {whole, one}
    assert set(Job.objects.for_collection(a.collection)) == {whole, one, other_topic}
    html = render_to_string(
        "crux_app/jobs/_job_links.html", {"jobs": Job.objects.for_topic(a.topics[0])}
    )
    assert reverse("job-detail", args=[whole.pk]) in html
    assert reverse("job-detail", args=[one.pk]) in html
    assert reverse("job-detail", args=[elsewhere.pk]) not in html
    assert "No jobs." in render_to_string("crux_app/jobs/_job_links.html", {"jobs": []})


@pytest.mark.parametrize(
    ("method", "name", "args"),
    [
        ("get", "job-list", []),
        ("get", "job-table", []),
        ("get", "job-detail", [1]),
        ("post", "job-retry", [1]),
    ],
)
def test_annotators_get_403_and_anonymous_users_go_to_login(client, annotator, method, name, args):
    Job.objects.create(pk=1, kind="generate_answers", state=Job.State.FAILED)
    url = reverse(name, args=args)
    anonymous = getattr(client, method)(url)
    assert anonymous.status_code == 302 and anonymous.url.startswith(reverse("login"))
    client.force_login(annotator)
    assert getattr(client, method)(url).status_code == 403
    assert Job.objects.get(pk=1).state == Job.State.FAILED


def test_a_pending_job_waits_instead_of_showing_an_empty_progress(researcher_client, researcher):
    job = Job.objects.create(kind="generate_answers", created_by=researcher)
    body = researcher_client.get(reverse("job-table"), HTTP_HX_REQUEST="true").content.decode()
    row = body[body.index(f'id="job-{job.pk}"') :]
    assert "waiting for a worker" in row and "0/0" not in row
