"""A real worker: it makes /readyz ready, logs its job in JSON with the job id, moves the
metrics, and once killed makes /readyz 503 and ``worker_alive`` fail."""

from __future__ import annotations

import json
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from crux_app.jobs import heartbeat
from crux_app.models import Job, WorkerHeartbeat
from tests.operations.scraping import sample, scrape
from tests.worker.job_waiting import finished, wait_for
from tests.worker_fixtures import BROKER_URL

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

RECORD = {"id": "q1", "question": "Who wrote Hamlet?", "answers": ["Shakespeare"], "contexts": []}


@pytest.fixture
def upload_dir(tmp_path, settings, monkeypatch):
    """Uploads under tmp_path for this process and the worker (before ``start_worker``)."""
    folder = tmp_path / "uploads"
    settings.UPLOAD_DIR = folder
    monkeypatch.setenv("UPLOAD_DIR", str(folder))
    return folder


def _wait_for_heartbeat(worker) -> None:
    deadline = time.monotonic() + 30
    while not WorkerHeartbeat.objects.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"no heartbeat:\n{worker.log_tail()}")
        time.sleep(0.1)


def test_a_worker_serves_readyz_logs_json_and_its_death_is_seen(
    upload_dir, start_worker, researcher_client, client, settings, monkeypatch
):
    settings.CELERY_BROKER_URL = BROKER_URL
    worker = start_worker(
        {"LOG_FORMAT": "json", "LOG_LEVEL": "INFO", "WORKER_HEARTBEAT_SECONDS": "0.5"}
    )
    _wait_for_heartbeat(worker)
    checks = client.get("/readyz").json()["checks"]
    assert checks["queue:gpu"]["ok"] and checks["queue:cpu"]["ok"], checks
    call_command("worker_alive", "--queue", "cpu")

    body = (json.dumps(RECORD) + "\n").encode()
    researcher_client.post(
        reverse("upload"),
        {"format": "qa", "collection": "nq", "file": SimpleUploadedFile("qa.jsonl", body)},
    )
    job = wait_for(Job.objects.get(kind="import"), finished, worker)
    assert job.state == Job.State.SUCCEEDED, worker.log_tail()
    assert sample(scrape(client), "crux_jobs", kind="import", state="succeeded") == 1

    time.sleep(0.5)  # the finish line is flushed after the task's end
    lines = [json.loads(line) for line in worker.log.splitlines() if line.startswith("{")]
    of_job = [line for line in lines if line.get("job_id") == job.pk]
    events = [line.get("event") for line in of_job]
    assert "job_start" in events and "job_finish" in events, worker.log_tail()
    assert any(line["logger"].startswith("celery") for line in of_job)  # Celery's own lines too

    worker.kill()  # no shutdown: its heartbeat row stays and goes stale
    monkeypatch.setattr(heartbeat, "STALE_AFTER_SECONDS", 1)
    time.sleep(1.5)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["queue:gpu"]["ok"] is False
    with pytest.raises(CommandError) as failed:
        call_command("worker_alive", "--queue", "gpu")
    assert failed.value.returncode == 1
