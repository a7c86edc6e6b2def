"""Uploads the file system cannot hold are a 400 with the reason (never a 500), an upload over
UPLOAD_MAX_BYTES is a 413 before anything is stored, and stored uploads are private (0700
folders, 0600 files)."""

import json
import stat

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.models import Collection, Job

pytestmark = pytest.mark.django_db

TOPICS = b"q1\tWhat changed?\nq2\tWho was there?\n"


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def _nothing_kept(upload_dir) -> bool:
    return not Job.objects.exists() and (not upload_dir.exists() or not any(upload_dir.iterdir()))


def _topics(name="topics.tsv", content=TOPICS) -> dict:
    return {"format": "topics", "collection": "web", "file": SimpleUploadedFile(name, content)}


def _folder(paths: list[str]) -> dict:
    return {
        "format": "crux-labeling",
        "collection": "web",
        "folder": [SimpleUploadedFile(p.rsplit("/", 1)[-1], b"{}\n") for p in paths],
        "relative_paths": json.dumps(paths),
    }


def test_a_file_name_of_200_accented_letters_is_a_400(researcher_client, upload_dir):
    response = researcher_client.post(reverse("upload"), _topics("é" * 200))
    assert response.status_code == 400
    body = response.content.decode()
    assert "400 bytes long in UTF-8; file systems store at most 255" in body
    assert _nothing_kept(upload_dir)


@pytest.mark.parametrize(
    "paths",
    [["top/a", "top/a/b.run"], ["top/a/b.run", "top/a"]],
    ids=["file-first", "folder-first"],
)
def test_a_path_that_is_a_file_and_a_folder_is_a_400(researcher_client, upload_dir, paths):
    response = researcher_client.post(reverse("upload"), _folder(paths))
    assert response.status_code == 400
    assert "The path &#x27;top/a&#x27; is both a file and the folder of" in (
        response.content.decode()
    )
    assert _nothing_kept(upload_dir)


def test_a_path_segment_over_255_bytes_is_a_400(researcher_client, upload_dir):
    response = researcher_client.post(
        reverse("upload"), _folder(["top/" + "d" * 256 + "/x.jsonl", "top/y.jsonl"])
    )
    assert response.status_code == 400
    assert "256 bytes long in UTF-8; file systems store at most 255" in response.content.decode()
    assert _nothing_kept(upload_dir)


def test_a_path_listed_twice_is_a_400_not_an_overwrite(researcher_client, upload_dir):
    response = researcher_client.post(reverse("upload"), _folder(["top/x.jsonl", "top/x.jsonl"]))
    assert response.status_code == 400
    assert "is listed twice" in response.content.decode()
    assert _nothing_kept(upload_dir)


def test_an_upload_over_the_limit_is_a_413_before_it_is_stored(
    researcher_client, upload_dir, settings
):
    settings.UPLOAD_MAX_BYTES = len(TOPICS) - 1
    response = researcher_client.post(reverse("upload"), _topics())
    assert response.status_code == 413
    body = response.content.decode()
    assert f"The upload holds {len(TOPICS):,} bytes; at most {len(TOPICS) - 1:,} bytes" in body
    assert "UPLOAD_MAX_BYTES" in body
    assert _nothing_kept(upload_dir)

    settings.UPLOAD_MAX_BYTES = len(TOPICS)  # exactly the limit is fine
    response = researcher_client.post(reverse("upload"), _topics())
    assert response.status_code == 302


def test_a_folder_over_the_limit_counts_all_its_files(researcher_client, upload_dir, settings):
    settings.UPLOAD_MAX_BYTES = 5  # two files of 3 bytes each
    response = researcher_client.post(reverse("upload"), _folder(["top/x.jsonl", "top/y.jsonl"]))
    assert response.status_code == 413
    assert "The upload holds 6 bytes" in response.content.decode()
    assert _nothing_kept(upload_dir)


def test_a_body_over_the_limit_is_refused_before_it_is_read(
    researcher_client, upload_dir, settings
):
    settings.UPLOAD_MAX_BYTES = 1_000
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    response = researcher_client.post(reverse("upload"), _topics(content=b"q\tx\n" * 1_000))
    assert response.status_code == 413
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert "Upload too large" in response.content.decode()
    assert "at most 1,000 bytes of files" in response.content.decode()
    assert _nothing_kept(upload_dir)


def test_stored_uploads_are_private(researcher_client, upload_dir):
    assert researcher_client.post(reverse("upload"), _topics()).status_code == 302
    job = Job.objects.get()
    stored = upload_dir / job.params["source"]
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(upload_dir.stat().st_mode) == 0o700  # created by the first upload

    researcher_client.post(reverse("upload"), _folder(["top/labels/a.jsonl", "top/b.jsonl"]))
    folder = upload_dir / Job.objects.exclude(pk=job.pk).get().params["source"]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "labels").stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "labels" / "a.jsonl").stat().st_mode) == 0o600
    assert not Collection.objects.exists()  # storing imports nothing
