"""Uploads of failed imports do not stay forever: ``sweep_uploads`` (and the worker, after each
import job) removes those unused for longer than UPLOAD_FAILED_RETENTION_DAYS; uploads that a
pending or running job still needs are kept, whatever their age."""

import os
from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.utils import timezone

from crux_app.dataio.upload_sweep import sweep_failed_uploads
from crux_app.dataio.uploads import store_file, upload_folder_name
from crux_app.models import Job
from crux_app.tasks import import_data

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.UPLOAD_FAILED_RETENTION_DAYS = 30
    return settings.UPLOAD_DIR


def _upload(age_days: float = 0) -> str:
    """A stored upload whose folder was last written ``age_days`` ago; its source."""
    stored = store_file(SimpleUploadedFile("topics.tsv", b"q1\t\n"))
    when = (timezone.now() - timedelta(days=age_days)).timestamp()
    os.utime(settings.UPLOAD_DIR / upload_folder_name(stored.source), (when, when))
    return stored.source


def _job(source: str, state: str, finished_days_ago: float | None = None) -> Job:
    finished = None
    if finished_days_ago is not None:
        finished = timezone.now() - timedelta(days=finished_days_ago)
    params = {"format": "topics", "collection": "web", "source": source, "label": "topics.tsv"}
    return Job.objects.create(kind="import", params=params, state=state, finished_at=finished)


def _folders(upload_dir) -> set[str]:
    return {p.name for p in upload_dir.iterdir()} if upload_dir.exists() else set()


@pytest.fixture
def uploads(upload_dir):
    """Uploads in every situation the sweep tells apart, by name."""
    sources = {
        "failed-old": _job(_upload(40), Job.State.FAILED, 31).params["source"],
        "failed-new": _job(_upload(40), Job.State.FAILED, 1).params["source"],
        "cancelled-old": _job(_upload(40), Job.State.CANCELLED, 31).params["source"],
        "pending-old": _job(_upload(40), Job.State.PENDING).params["source"],
        "running-old": _job(_upload(40), Job.State.RUNNING).params["source"],
        "orphan-old": _upload(31),
        "orphan-new": _upload(0),
    }
    (upload_dir / "notes").mkdir()  # not an upload folder: never touched
    return {name: upload_folder_name(source) for name, source in sources.items()}


def test_sweep_removes_only_uploads_unused_past_the_retention(uploads, upload_dir):
    result = sweep_failed_uploads()
    gone = {uploads["failed-old"], uploads["cancelled-old"], uploads["orphan-old"]}
    assert set(result.removed) == gone
    assert result.kept == 4
    assert _folders(upload_dir) == (set(uploads.values()) - gone) | {"notes"}


def test_the_retention_comes_from_the_setting(uploads, upload_dir, settings):
    settings.UPLOAD_FAILED_RETENTION_DAYS = 0
    result = sweep_failed_uploads()
    # Even at 0 days, a folder no job names yet is kept for an hour: its job may be committing.
    assert uploads["failed-new"] in result.removed
    assert uploads["orphan-new"] not in result.removed
    assert _folders(upload_dir) == {
        uploads["pending-old"],
        uploads["running-old"],
        uploads["orphan-new"],
        "notes",
    }


def test_command_dry_run_lists_and_keeps_then_removes(uploads, upload_dir):
    before = _folders(upload_dir)
    out = _call("--dry-run")
    assert f"would remove {uploads['failed-old']}" in out
    assert "would remove 3 upload folder(s); kept 4" in out
    assert _folders(upload_dir) == before

    out = _call("--days", "0")
    assert f"removed {uploads['failed-new']}" in out
    assert "removed 4 upload folder(s); kept 3" in out
    with pytest.raises(CommandError, match="--days"):
        _call("--days", "-1")


def test_the_worker_sweeps_after_an_import_job(uploads, upload_dir):
    job = _job(_upload(), Job.State.PENDING)
    import_data(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED  # "empty text for topic 'q1'"
    assert job.message == "topics.tsv:1: empty text for topic 'q1'"
    assert uploads["failed-old"] not in _folders(upload_dir)
    assert upload_folder_name(job.params["source"]) in _folders(upload_dir)  # just failed


def test_a_swept_jobs_retry_says_to_upload_again(upload_dir):
    job = _job(_upload(40), Job.State.FAILED, 31)
    sweep_failed_uploads()
    job.state = Job.State.PENDING
    job.save()
    import_data(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert "is no longer stored" in job.message
    assert "upload it again from the job's page" in job.message


def _call(*args: str) -> str:
    out = StringIO()
    call_command("sweep_uploads", *args, stdout=out)
    return out.getvalue()
