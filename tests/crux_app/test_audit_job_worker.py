"""An import job run by a real celery worker is recorded as the job's, by the researcher who
uploaded the file: the rows its COPY wrote and the import itself."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.models import AuditEvent, Collection, Job
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

RECORD = {
    "id": "q1",
    "question": "Who wrote Hamlet?",
    "answers": ["Shakespeare"],
    "contexts": [{"id": "p1", "text": "Hamlet is a tragedy by Shakespeare.", "gold": True}],
}


@pytest.fixture
def upload_dir(tmp_path, settings, monkeypatch):
    """Uploads under tmp_path, for this process and the worker (requested before it starts)."""
    folder = tmp_path / "uploads"
    settings.UPLOAD_DIR = folder
    monkeypatch.setenv("UPLOAD_DIR", str(folder))
    return folder


def test_a_jobs_writes_are_recorded_as_the_job_of_its_creator(
    upload_dir, start_worker, researcher_client, researcher
):
    worker = start_worker()
    body = (json.dumps(RECORD) + "\n").encode()
    researcher_client.post(
        reverse("upload"),
        {"format": "qa", "collection": "nq", "file": SimpleUploadedFile("qa.jsonl", body)},
    )
    job = wait_for(Job.objects.get(kind="import"), finished, worker)
    assert job.state == Job.State.SUCCEEDED, (job.errors, worker.log_tail())
    collection = Collection.objects.get(name="nq")
    [record] = AuditEvent.objects.filter(kind="import")
    assert (record.origin, record.username, record.context["job"]) == ("job", "rita", job.pk)
    assert record.detail["file"] == "qa.jsonl" and record.detail["format"] == "qa"
    assert record.collection_id == collection.pk
    qrels = AuditEvent.objects.filter(kind="passageqrel.insert", collection_id=collection.pk)
    assert qrels.count() == 1 and qrels.get().context["job"] == job.pk
    assert {e.username for e in qrels} == {researcher.username}
