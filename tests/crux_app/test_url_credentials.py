"""A user and password written into a URL (a model server's ``*_API_BASE``) are masked in every
message and error a job stores, and in its log lines."""

import logging

import pytest
from django.urls import reverse

from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.models import Job
from crux_app.url_credentials import mask_credentials

SECRET = "s3cr3t-pw"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("http://user:pass@host:8000/v1", "http://***@host:8000/v1"),
        ("https://token@api.example.com/v1", "https://***@api.example.com/v1"),
        ("http://u:p@ss@host/v1", "http://***@host/v1"),  # an unescaped "@" in the password
        (
            "model server http://a:b@one/v1 and 'https://c:d@two:1/x' down",
            "model server http://***@one/v1 and 'https://***@two:1/x' down",
        ),
        ("http://host:8000/v1?to=a@b.org", "http://host:8000/v1?to=a@b.org"),
        ("http://host/v1/user@x", "http://host/v1/user@x"),
        ("mail anna@example.org", "mail anna@example.org"),
        ("no url here", "no url here"),
    ],
)
def test_mask_credentials(text, masked):
    assert mask_credentials(text) == masked


@pytest.fixture
def job(db) -> Job:
    return Job.objects.create(kind="generate_answers")


def test_a_failing_batch_naming_a_server_url_is_stored_and_logged_masked(job, caplog):
    def process(batch):
        raise ConnectionError(f"model server http://judge:{SECRET}@gpu-host:8000/v1 down")

    with caplog.at_level(logging.WARNING):
        run_batches(job, [[1]], process, retries=0)
    job.refresh_from_db()
    [error] = job.errors
    assert "http://***@gpu-host:8000/v1" in error["message"]
    assert SECRET not in str(job.errors) and SECRET not in job.message
    assert "http://***@gpu-host:8000/v1" in error["traceback"]
    assert SECRET not in caplog.text and "***@gpu-host" in caplog.text


def test_a_job_failed_before_its_batches_stores_the_message_masked(job, caplog):
    with caplog.at_level(logging.WARNING), fail_job_on_error(job):
        raise RuntimeError(f"JUDGE_API_BASE='https://me:{SECRET}@api.example.com/v1' refused")
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.message == "JUDGE_API_BASE='https://***@api.example.com/v1' refused"
    assert SECRET not in str(job.errors) and SECRET not in caplog.text


def test_the_job_page_never_shows_the_password(job, researcher_client, researcher):
    researcher.is_staff = True  # staff see the traceback too
    researcher.save(update_fields=["is_staff"])
    Job.objects.filter(pk=job.pk).update(created_by=researcher)  # theirs to see
    with fail_job_on_error(job):
        raise RuntimeError(f"model server http://u:{SECRET}@gpu:8000/v1 is unreachable")
    html = researcher_client.get(reverse("job-detail", args=[job.pk])).content.decode()
    assert "http://***@gpu:8000/v1 is unreachable" in html and "Traceback" in html
    assert SECRET not in html
