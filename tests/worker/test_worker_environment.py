"""The worker tests do not depend on the caller's environment: a shell that exported
``CELERY_BROKER_URL`` (Celery prefers it over the app's configuration) once made the test
process send to one broker while the worker listened on another, and every job test hung."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

from crux_app.celery import app as celery_app
from crux_app.jobs.service import start_job
from crux_app.models import Job
from evaluation.answers.job import AnswerJobParams, run_answer_job
from tests import worker_fixtures
from tests.crux_app.job_collections import make_answer_collection
from tests.evaluation.backends.fake_generator import RecordingGenerator
from tests.worker.job_waiting import finished, wait_for

# What a caller's shell might export: another broker and backend, eager mode, a write URL.
CALLERS_ENVIRONMENT = {
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/3",
    "CELERY_BROKER_WRITE_URL": "redis://127.0.0.1:6379/3",
    "CELERY_RESULT_BACKEND": "redis://127.0.0.1:6379/4",
    "CELERY_TASK_ALWAYS_EAGER": "1",
    "CELERY_FILESYSTEM_DIR": "/nonexistent",
}


@pytest.fixture
def callers_environment(monkeypatch):
    """The caller's variables, exported after the session start; request before start_worker."""
    for name, value in CALLERS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)


def test_session_forgets_the_callers_celery_variables():
    # Run by itself it proves little; test_a_pytest_run_ignores_... runs it under the variables.
    assert [name for name in os.environ if name.startswith("CELERY_")] == []
    assert settings.CELERY_BROKER_URL == celery_app.conf.broker_url == "redis://127.0.0.1:6379/0"
    assert celery_app.conf.result_backend == settings.CELERY_RESULT_BACKEND
    assert celery_app.conf.result_backend == "redis://127.0.0.1:6379/1"
    assert celery_app.conf.task_always_eager is False
    assert celery_app.conf.broker_transport_options["visibility_timeout"] == 3600


def test_a_pytest_run_ignores_the_celery_variables_its_caller_exported():
    test_id = f"{__file__}::test_session_forgets_the_callers_celery_variables"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", test_id, "-q", "-p", "no:cacheprovider"],
        cwd=settings.BASE_DIR,
        env={**os.environ, **CALLERS_ENVIRONMENT, "CELERY_BROKER_URL": "filesystem://"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "1 passed" in result.stdout


def test_worker_environment_strips_the_callers_celery_variables(callers_environment, monkeypatch):
    monkeypatch.setenv("UPLOAD_DIR", "/tmp/uploads")

    env = worker_fixtures.worker_environment("redis://b", "redis://r", "postgres://d")

    assert {name: value for name, value in env.items() if name.startswith("CELERY_")} == {
        "CELERY_BROKER_URL": "redis://b",
        "CELERY_RESULT_BACKEND": "redis://r",
        "CELERY_VISIBILITY_TIMEOUT": str(worker_fixtures.VISIBILITY_TIMEOUT_S),
        "CELERY_TASK_ALWAYS_EAGER": "0",
    }
    assert env["DATABASE_URL"] == "postgres://d"
    assert env["UPLOAD_DIR"] == "/tmp/uploads"  # everything else is inherited


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_job_reaches_the_test_worker_although_the_caller_exported_another_broker(
    callers_environment, start_worker
):
    broker_url, result_url = worker_fixtures.BROKER_URL, worker_fixtures.RESULT_URL
    # This process sends to the test broker, and does not run tasks in-process.
    assert celery_app.conf.broker_url == celery_app.conf.broker_write_url == broker_url
    assert celery_app.conf.result_backend == result_url
    assert celery_app.conf.task_always_eager is False
    data = make_answer_collection(n_topics=2)
    params = AnswerJobParams(run_id=data.run.pk, k=1).as_params(data.run)
    # Answers already stored: the worker's task finishes without loading any model.
    run_answer_job(
        Job.objects.create(kind="generate_answers", params=params, collection=data.collection),
        RecordingGenerator,
    )

    worker = start_worker()
    assert worker.env["CELERY_BROKER_URL"] == broker_url
    assert worker.env["CELERY_RESULT_BACKEND"] == result_url
    assert "CELERY_BROKER_WRITE_URL" not in worker.env
    assert "CELERY_FILESYSTEM_DIR" not in worker.env
    job = wait_for(
        start_job("generate_answers", params, collection=data.collection),
        finished,
        worker,
        timeout=60,
    )

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.message == "generated 0, already stored 2"
    assert f"jobs.generate_answers[{job.celery_task_id}] received" in worker.log
