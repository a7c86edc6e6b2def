"""A collection's archive from the API and the collection page: a job on the ``cpu`` queue
(run in-process here) whose download is the ``export_collection`` archive, for researchers
only; the downloaded archive restores with ``import_collection``."""

import tarfile
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from crux_app.models import Collection, Job, Topic
from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db


@pytest.fixture
def export_dir(settings, tmp_path):
    settings.API_EXPORT_DIR = tmp_path / "exports"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    return settings.API_EXPORT_DIR


def test_the_api_starts_an_archive_job_whose_download_restores(
    api, annotator_api, export_dir, tmp_path, django_capture_on_commit_callbacks
):
    make_small_collection("duc04")
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/api/v1/collections/duc04/archive/", {}, content_type="application/json"
        )
    assert response.status_code == 202, response.content
    job = api.get(f"/api/v1/jobs/{response.json()['job']['id']}/").json()
    assert (job["kind"], job["state"]) == ("collection_archive", "succeeded"), job
    assert job["download"]["filename"] == "duc04.tar.gz"
    got = api.get(job["download"]["url"])
    assert got.status_code == 200 and got["Content-Type"] == "application/gzip"
    path = tmp_path / "downloaded.tar.gz"
    path.write_bytes(b"".join(got.streaming_content))
    with tarfile.open(path, "r:gz") as archive:
        assert "manifest.json" in archive.getnames()
    call_command("import_collection", str(path), "--as", "duc04-again", stdout=StringIO())
    assert Topic.objects.filter(collection__name="duc04-again").count() == 2
    assert annotator_api.get(job["download"]["url"]).status_code == 403
    refused = annotator_api.post(
        "/api/v1/collections/duc04/archive/", {}, content_type="application/json"
    )
    assert refused.status_code == 403
    missing = api.post("/api/v1/collections/nope/archive/", {}, content_type="application/json")
    assert missing.status_code == 404


def test_the_collection_page_exports_an_archive(
    researcher_client, annotator_api, export_dir, django_capture_on_commit_callbacks
):
    small = make_small_collection("duc04")
    page = researcher_client.get(reverse("collection-detail", args=[small.collection.pk]))
    action = reverse("collection-archive", args=[small.collection.pk])
    assert f'action="{action}"' in page.content.decode()
    assert "Export as archive" in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post(action)
    job = Job.objects.get(kind="collection_archive")
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    job_page = researcher_client.get(response["Location"]).content.decode()
    assert reverse("api-export-download", args=[job.pk]) in job_page
    assert researcher_client.get(reverse("api-export-download", args=[job.pk])).status_code == 200
    assert annotator_api.post(action).status_code in (302, 403)
    assert Job.objects.filter(kind="collection_archive").count() == 1
    assert Collection.objects.count() == 1
