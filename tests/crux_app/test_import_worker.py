"""An upload through the upload page, imported by a real celery worker on the ``cpu`` queue."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.models import Collection, Job, Passage, PassageQrel, Run
from tests.worker.job_waiting import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

RECORDS = [
    {
        "id": "q1",
        "question": "Who wrote Hamlet?",
        "answers": ["Shakespeare"],
        "contexts": [
            {"id": "p1", "text": "Hamlet is a tragedy by Shakespeare.", "gold": True},
            {"id": "p2", "text": "Macbeth is set in Scotland."},
        ],
    },
    {
        "id": "q2",
        "question": "Where is Macbeth set?",
        "answers": ["Scotland"],
        "contexts": [{"id": "p2", "text": "Macbeth is set in Scotland.", "gold": True}],
    },
]


@pytest.fixture
def upload_dir(tmp_path, settings, monkeypatch):
    """Uploads under tmp_path, for this process and for the worker, which reads UPLOAD_DIR
    from the environment that ``start_worker`` copies at its setup: request this fixture
    before ``start_worker``."""
    folder = tmp_path / "uploads"
    settings.UPLOAD_DIR = folder
    monkeypatch.setenv("UPLOAD_DIR", str(folder))
    return folder


def test_worker_imports_a_file_uploaded_through_the_page(
    upload_dir, start_worker, researcher_client
):
    worker = start_worker()
    body = "".join(json.dumps(r) + "\n" for r in RECORDS).encode()

    response = researcher_client.post(
        reverse("upload"),
        {"format": "qa", "collection": "nq", "file": SimpleUploadedFile("qa.jsonl", body)},
    )

    job = Job.objects.get(kind="import")
    assert response.status_code == 302
    assert response.url == reverse("job-detail", args=[job.pk])
    job = wait_for(job, finished, worker)
    assert job.state == Job.State.SUCCEEDED, (job.errors, worker.log_tail())
    assert job.message == (
        "qa import into 'nq' (new collection): 2 topics, 2 sub-questions, 2 passages, "
        "2 gold qrels, 1 runs, 3 run entries"
    )
    collection = Collection.objects.get(name="nq")
    assert job.collection == collection
    assert sorted(collection.topics.values_list("external_id", flat=True)) == ["q1", "q2"]
    assert Passage.objects.filter(collection=collection).count() == 2
    assert PassageQrel.objects.filter(topic__collection=collection).count() == 2
    assert Run.objects.get(collection=collection).entries.count() == 3
    assert f"jobs.import[{job.celery_task_id}] received" in worker.log
    assert list(upload_dir.iterdir()) == []  # the stored upload is removed after success
