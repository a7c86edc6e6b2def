"""Stored uploads: a folder's path list and file names that would crash the web request."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from crux_app.dataio.uploads import UploadRejected, store_file, store_folder


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def _files(n: int) -> list[SimpleUploadedFile]:
    return [SimpleUploadedFile(f"f{i}.jsonl", b"{}\n") for i in range(n)]


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "did not arrive"),
        ('["p/a.jsonl", "p/b\\u0000.jsonl"]', "Refused the file path"),
        ('["p/a.jsonl", ["p", "b.jsonl"]]', "must be strings"),
        ('["p/a.jsonl", "../b.jsonl"]', "Refused the file path"),
    ],
)
def test_a_bad_path_list_is_refused_and_nothing_is_kept(upload_dir, paths, message):
    with pytest.raises(UploadRejected, match=message):
        store_folder(_files(2), paths)
    assert not upload_dir.exists() or not any(upload_dir.iterdir())


def test_a_nul_character_in_a_file_name_is_dropped(upload_dir):
    stored = store_file(SimpleUploadedFile("bm\x0025.run", b"q 0 d 1 1.0 t\n"))
    assert stored.label == "bm25.run"
    assert (upload_dir / stored.source).read_bytes() == b"q 0 d 1 1.0 t\n"
