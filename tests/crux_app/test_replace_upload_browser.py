"""A failed folder import's job page, in a real browser: choosing the corrected folder sends
each file's path inside it (static/js/replace_upload.js), so the same job imports the release
again and succeeds."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from crux_app.models import Job, PassageQrel
from tests.crux_app.importer_inputs import hub_release

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def eager(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    return settings.UPLOAD_DIR


def _failed_folder_import(researcher, release) -> Job:
    """An upload of ``release`` with one qrels file spoiled, through the upload view."""
    files = sorted(p for p in release.rglob("*") if p.is_file())
    paths = [f"{release.name}/{p.relative_to(release).as_posix()}" for p in files]
    uploads = [
        SimpleUploadedFile(p.name, b"t1 0\n" if p.name == "testb_qrels_pr.txt" else p.read_bytes())
        for p in files
    ]
    client = Client()
    client.force_login(researcher)
    data = {"format": "crux", "collection": "hub", "split": "testb", "tau": "3"}
    data |= {"folder": uploads, "relative_paths": json.dumps(paths)}
    assert client.post(reverse("upload"), data).status_code == 302
    job = Job.objects.get()
    assert job.state == Job.State.FAILED
    assert job.message.startswith("crux/ranking_3/testb_qrels_pr.txt:1: ")
    return job


def test_a_corrected_folder_replaces_the_failed_upload(
    researcher, login, page_errors, live_server, tmp_path, eager
):
    release = hub_release(tmp_path / "crux")
    job = _failed_folder_import(researcher, release)
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("job-detail", args=[job.pk]))

    # Only the browser knows each file's place in the folder; without the script the server
    # would get bare file names and could not find ranking_3/testb_qrels_pr.txt.
    page.set_input_files("#id_replace_folder", str(release))
    page.click("#replace-upload-form button[type=submit]")

    expect(page.locator("body")).to_contain_text(f"job #{job.pk} imports them again")
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.params["label"] == "crux"
    assert PassageQrel.objects.filter(source="crux_tau3").count() == 6
    assert not any(eager.iterdir())  # the old upload deleted, the new one imported and deleted
    assert page_errors == []


def test_the_replacement_form_appears_when_the_import_fails_without_a_reload(
    researcher, login, page_errors, live_server, tmp_path, eager
):
    release = hub_release(tmp_path / "crux")
    job = _failed_folder_import(researcher, release)
    failed = Job.objects.filter(pk=job.pk).values("state", "message", "finished_at").get()
    Job.objects.filter(pk=job.pk).update(state=Job.State.RUNNING, message="", finished_at=None)
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("job-detail", args=[job.pk]))
    expect(page.locator("#job-status .badge")).to_have_text("Running")
    assert page.locator("#replace-upload-form").count() == 0
    page.evaluate("window.sameDocument = true")

    Job.objects.filter(pk=job.pk).update(**failed)  # the worker's importer fails it
    expect(page.locator("#replace-upload-form")).to_be_visible(timeout=10_000)
    expect(page.locator("#job-status")).to_contain_text("Replace the upload and retry")
    assert page.evaluate("window.sameDocument") is True  # no reload

    page.set_input_files("#id_replace_folder", str(release))
    page.click("#replace-upload-form button[type=submit]")
    expect(page.locator("body")).to_contain_text(f"job #{job.pk} imports them again")
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert page_errors == []
