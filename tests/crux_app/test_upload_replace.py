"""A failed import's upload can be replaced from its job page: the job then imports the new
file or folder (same job, next attempt) and the old upload is deleted. Run end to end through
the views, the job's task in-process (eager), as the upload tests do."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.models import Collection, Job, PassageQrel, Topic
from tests.crux_app.importer_inputs import hub_release

pytestmark = pytest.mark.django_db

BAD_TOPICS = b"q1\tWhat changed?\nq2\t\n"
GOOD_TOPICS = b"q1\tWhat changed?\nq2\tWho was there?\n"


@pytest.fixture(autouse=True)
def eager(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    return settings.UPLOAD_DIR


@pytest.fixture
def post(researcher_client, django_capture_on_commit_callbacks):
    """POST, running the tasks sent on commit in-process (the worker's part)."""

    def send(url: str, data: dict):
        with django_capture_on_commit_callbacks(execute=True):
            return researcher_client.post(url, data)

    return send


def _failed_topics_job(post) -> Job:
    data = {
        "format": "topics",
        "collection": "web",
        "file": SimpleUploadedFile("topics.tsv", BAD_TOPICS),
    }
    assert post(reverse("upload"), data).status_code == 302
    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.message == "topics.tsv:2: empty text for topic 'q2'"
    return job


def _folders(upload_dir) -> list[str]:
    return sorted(p.name for p in upload_dir.iterdir())


def test_a_failed_imports_file_is_replaced_and_the_job_succeeds(post, researcher_client, eager):
    job = _failed_topics_job(post)
    old_folder = job.params["source"].split("/")[0]
    page = researcher_client.get(reverse("job-detail", args=[job.pk])).content.decode()
    assert 'id="replace-upload-form"' in page and 'name="file"' in page
    assert f'action="{reverse("job-replace-upload", args=[job.pk])}"' in page

    replacement = SimpleUploadedFile("topics-fixed.tsv", GOOD_TOPICS)
    response = post(reverse("job-replace-upload", args=[job.pk]), {"file": replacement})

    assert response.status_code == 302
    assert response.url == reverse("job-detail", args=[job.pk])
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert (job.attempts, job.message) == (2, "topics import into 'web' (new collection): 2 topics")
    assert job.params["label"] == "topics-fixed.tsv"
    assert job.params["source"].split("/")[0] != old_folder
    assert sorted(Topic.objects.values_list("request", flat=True)) == [
        "What changed?",
        "Who was there?",
    ]
    assert _folders(eager) == []  # the old upload deleted, the new one imported and deleted
    page = researcher_client.get(reverse("job-detail", args=[job.pk]))
    assert [str(m) for m in page.context["messages"]] == [
        f"Uploaded 1 file; job #{job.pk} imports them again."
    ]
    assert 'id="replace-upload-form"' not in page.content.decode()  # succeeded: nothing to replace


def test_a_failed_folder_import_is_replaced_by_a_folder(post, tmp_path, eager):
    release = hub_release(tmp_path / "crux")
    files = sorted(p for p in release.rglob("*") if p.is_file())
    paths = [f"crux/{p.relative_to(release).as_posix()}" for p in files]
    spoiled = next(i for i, p in enumerate(paths) if p.endswith("/testb_qrels_pr.txt"))

    def folder(spoil: bool) -> dict:
        uploads = [SimpleUploadedFile(p.name, p.read_bytes()) for p in files]
        if spoil:
            uploads[spoiled] = SimpleUploadedFile(files[spoiled].name, b"t1 0\n")
        return {"folder": uploads, "relative_paths": json.dumps(paths)}

    data = {"format": "crux", "collection": "hub", "split": "testb", "tau": "3", **folder(True)}
    assert post(reverse("upload"), data).status_code == 302
    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.message.startswith("crux/ranking_3/testb_qrels_pr.txt:1: ")
    assert not Collection.objects.exists()

    response = post(reverse("job-replace-upload", args=[job.pk]), folder(False))

    assert response.status_code == 302
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert (job.params["split"], job.params["tau"], job.params["label"]) == ("testb", 3, "crux")
    assert PassageQrel.objects.filter(source="crux_tau3").count() == 6
    assert _folders(eager) == []


@pytest.mark.parametrize("state", [Job.State.SUCCEEDED, Job.State.PENDING, Job.State.RUNNING])
def test_only_a_failed_or_cancelled_import_can_be_replaced(post, eager, state):
    job = _failed_topics_job(post)
    Job.objects.filter(pk=job.pk).update(state=state)
    before = _folders(eager)
    response = post(
        reverse("job-replace-upload", args=[job.pk]),
        {"file": SimpleUploadedFile("topics.tsv", GOOD_TOPICS)},
    )
    assert response.status_code == 409
    assert f"job #{job.pk} is {state}; only a failed or cancelled import" in (
        response.content.decode()
    )
    assert _folders(eager) == before  # nothing stored, the old upload kept
    assert not Topic.objects.exists()


def test_a_job_of_another_kind_has_no_upload_to_replace(post, researcher):
    job = Job.objects.create(
        kind="import-not", state=Job.State.FAILED, params={}, created_by=researcher
    )
    response = post(
        reverse("job-replace-upload", args=[job.pk]),
        {"file": SimpleUploadedFile("topics.tsv", GOOD_TOPICS)},
    )
    assert response.status_code == 409
    assert "is not an import" in response.content.decode()


def test_a_refused_replacement_keeps_the_failed_job_and_its_upload(post, eager, settings):
    job = _failed_topics_job(post)
    before = _folders(eager)
    url = reverse("job-replace-upload", args=[job.pk])

    response = post(url, {})
    assert response.status_code == 400
    assert "Choose a file to upload." in response.content.decode()

    settings.UPLOAD_MAX_BYTES = len(GOOD_TOPICS) - 1
    response = post(url, {"file": SimpleUploadedFile("topics.tsv", GOOD_TOPICS)})
    assert response.status_code == 413
    assert "UPLOAD_MAX_BYTES" in response.content.decode()
    assert 'id="replace-upload-form"' in response.content.decode()  # try again

    job.refresh_from_db()
    assert (job.state, job.attempts) == (Job.State.FAILED, 1)
    assert _folders(eager) == before


def test_annotators_cannot_replace(client, annotator, post):
    job = _failed_topics_job(post)
    client.force_login(annotator)
    url = reverse("job-replace-upload", args=[job.pk])
    response = client.post(url, {"file": SimpleUploadedFile("topics.tsv", GOOD_TOPICS)})
    assert response.status_code == 403
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
