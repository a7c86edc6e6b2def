"""Cancelling a job: a pending one never starts, a running one stops between batches with its
stored results kept, a finished one is refused; a cancelled job can be resumed."""

import pytest
from django.urls import reverse

from crux_app.jobs.names import job_title
from crux_app.jobs.runner import fail_job_on_error, job_to_run, run_batches
from crux_app.jobs.service import (
    CANCELLED_PENDING_MESSAGE,
    JobNotCancellable,
    cancel_job,
    retry_job,
)
from crux_app.models import Job
from crux_app.models.job import JobCancelled

pytestmark = pytest.mark.django_db


def _job(state: str = Job.State.PENDING, owner=None) -> Job:  # noqa: ANN001 (a user)
    """A job of no collection: its starter's (``owner``) to see and cancel."""
    return Job.objects.create(kind="generate_answers", state=state, created_by=owner)


def test_a_pending_job_is_cancelled_at_once_and_never_started():
    job = cancel_job(_job())
    assert (job.state, job.cancel_requested) == (Job.State.CANCELLED, True)
    assert job.message == CANCELLED_PENDING_MESSAGE and job.finished_at is not None
    assert job.is_finished

    assert job_to_run(job.pk) is None  # the task that arrives later does nothing
    processed = []
    run_batches(job, [[1], [2]], processed.append)  # nor does a worker that planned already
    job.refresh_from_db()
    assert processed == []
    assert (job.state, job.attempts, job.started_at) == (Job.State.CANCELLED, 0, None)


def test_a_job_cancelled_while_its_worker_plans_is_left_cancelled():
    job = _job()
    with fail_job_on_error(job):
        cancel_job(job)  # the researcher clicks while the worker reads its items
        job.mark_running(total=3)
        pytest.fail("mark_running must refuse a cancelled job")  # pragma: no cover
    job.refresh_from_db()
    assert job.state == Job.State.CANCELLED and job.errors == []
    with pytest.raises(JobCancelled):
        job.mark_running(total=3)


def test_a_running_job_stops_before_its_next_batch_and_keeps_what_it_stored():
    job = _job()
    stored = []

    def process(batch):
        stored.extend(batch)
        if len(stored) == 2:
            cancel_job(job)  # asked while the second batch runs
        return {"judged": len(batch)}

    run_batches(job, [[1], [2], [3], [4]], process, note="already judged 5")
    job.refresh_from_db()
    assert stored == [1, 2]  # the current batch finished, no later one started
    assert (job.state, job.done, job.total) == (Job.State.CANCELLED, 2, 4)
    assert job.message == (
        "cancelled after 2 of 4 items (stored results kept); judged 2, already judged 5"
    )
    assert job.finished_at is not None


def test_a_cancel_asked_during_the_last_batch_lets_the_job_succeed():
    job = _job()

    def process(batch):
        if batch == [2]:
            cancel_job(job)

    run_batches(job, [[1], [2]], process)
    job.refresh_from_db()
    assert (job.state, job.done) == (Job.State.SUCCEEDED, 2)


def test_finished_jobs_cannot_be_cancelled():
    for state in (Job.State.SUCCEEDED, Job.State.FAILED, Job.State.CANCELLED):
        job = _job(state)
        with pytest.raises(JobNotCancellable, match=f"job #{job.pk} is {state}; only pending"):
            cancel_job(job)
        job.refresh_from_db()
        assert job.state == state


def test_resuming_a_cancelled_job_clears_the_cancel_and_runs_the_rest(
    settings, django_capture_on_commit_callbacks
):
    job = _job(Job.State.RUNNING)
    cancel_job(job)
    run_batches(job, [[1], [2]], lambda batch: None)
    job.refresh_from_db()
    assert (job.state, job.done) == (Job.State.CANCELLED, 0)

    with django_capture_on_commit_callbacks(execute=False):
        retry_job(job)
    assert (job.state, job.cancel_requested, job.message) == (Job.State.PENDING, False, "")
    run_batches(job, [[1], [2]], lambda batch: None)
    job.refresh_from_db()
    assert (job.state, job.done) == (Job.State.SUCCEEDED, 2)


def test_the_cancel_button_posts_and_says_what_happens(researcher_client, researcher):
    pending, running, done = (
        _job(state, researcher)
        for state in (Job.State.PENDING, Job.State.RUNNING, Job.State.SUCCEEDED)
    )

    response = researcher_client.post(reverse("job-cancel", args=[pending.pk]), follow=True)
    # Named as every page names a job (crux_app.jobs.names), not by its raw kind.
    text = response.content.decode()
    assert f"Cancelled {job_title(pending)} before a worker started it." in text
    assert f"{pending.kind} #" not in text
    pending.refresh_from_db()
    assert pending.state == Job.State.CANCELLED

    response = researcher_client.post(reverse("job-cancel", args=[running.pk]), follow=True)
    html = response.content.decode()
    assert f"Cancelling {job_title(running)}: it stops after its current batch" in html
    assert "<b>Cancelling:</b> the worker stops after its current batch" in html
    assert 'id="job-cancel"' not in html  # asked once
    running.refresh_from_db()
    assert (running.state, running.cancel_requested) == (Job.State.RUNNING, True)

    response = researcher_client.post(reverse("job-cancel", args=[done.pk]), follow=True)
    assert "only pending or running jobs can be cancelled" in response.content.decode()


def test_cancel_asks_to_confirm_first_without_a_script(researcher_client, researcher):
    job, done = _job(Job.State.RUNNING, researcher), _job(Job.State.SUCCEEDED, researcher)
    detail = researcher_client.get(reverse("job-detail", args=[job.pk])).content.decode()
    url = reverse("job-cancel", args=[job.pk])
    # The job's page links the confirmation; no form there cancels in one click.
    assert f'<a class="button" href="{url}" id="job-cancel">Cancel job…</a>' in detail
    assert f'action="{url}"' not in detail

    confirm = researcher_client.get(url)
    html = confirm.content.decode()
    assert confirm.status_code == 200
    assert f'<form method="post" action="{url}" id="job-cancel-form">' in html
    assert "Yes, cancel the job</button>" in html and "No, keep it running" in html
    job.refresh_from_db()
    assert (job.state, job.cancel_requested) == (Job.State.RUNNING, False)  # asking is not doing

    researcher_client.post(url)
    job.refresh_from_db()
    assert job.cancel_requested
    finished = researcher_client.get(reverse("job-cancel", args=[done.pk]), follow=True)
    assert "has finished: there is nothing to cancel" in finished.content.decode()


def test_cancel_needs_a_researcher_and_a_post(client, annotator, researcher_client):
    job = _job()
    url = reverse("job-cancel", args=[job.pk])
    assert researcher_client.post(reverse("job-cancel", args=[10**9])).status_code == 404
    assert researcher_client.get(reverse("job-cancel", args=[10**9])).status_code == 404
    client.force_login(annotator)
    assert client.post(url).status_code == 403
    job.refresh_from_db()
    assert job.state == Job.State.PENDING
