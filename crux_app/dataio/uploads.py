"""Uploaded files kept for the import job: one uuid folder per upload under ``UPLOAD_DIR``.

The web process writes them (``store_file``, ``store_folder``) and hands the job a path
relative to ``UPLOAD_DIR``; the worker finds the files again with ``stored_path`` and removes
the upload's folder with ``remove_upload`` once its import succeeded. A failed import keeps its
files, so that retrying the job imports them again.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

_UPLOAD_FOLDER = re.compile(r"^[0-9a-f]{32}$")


class UploadRejected(Exception):
    """The upload itself is unusable (no files, paths that leave the folder)."""


class UploadMissing(Exception):
    """A job's stored upload is not (or no longer) under ``UPLOAD_DIR``."""


@dataclass(frozen=True)
class StoredUpload:
    source: str  # the importer's input, relative to UPLOAD_DIR: "<uuid>/bm25.run"
    label: str  # how error messages name the input: "bm25.run", "crux_labeling" or ""
    files: int


def upload_root() -> Path:
    return Path(settings.UPLOAD_DIR)


def store_file(upload: UploadedFile | None) -> StoredUpload:
    """Keep one uploaded file; messages name it by its base name."""
    if upload is None:
        raise UploadRejected("Choose a file to upload.")
    name = PurePosixPath((upload.name or "").replace("\x00", "")).name
    if name in ("", ".", ".."):
        name = "upload"
    key, folder = _new_folder()
    try:
        _save(upload, folder / name)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return StoredUpload(f"{key}/{name}", name, 1)


def store_folder(files: list[UploadedFile], paths_json: str) -> StoredUpload:
    """Keep a folder sent by the browser: its files and their relative paths (a JSON list).

    The browser puts the chosen folder's own name first; the import starts inside it, and
    messages name files as the browser showed them: ``crux_labeling/labels/x.jsonl``.
    """
    if not files:
        raise UploadRejected("Choose a folder to upload.")
    try:
        paths = json.loads(paths_json or "[]")
    except (json.JSONDecodeError, RecursionError):
        paths = None
    if not isinstance(paths, list) or len(paths) != len(files):
        raise UploadRejected("The folder's file paths did not arrive; enable JavaScript.")
    if not all(isinstance(p, str) for p in paths):
        raise UploadRejected("The folder's file paths must be strings.")
    relative = [PurePosixPath(p) for p in paths]
    for p in relative:
        if p.is_absolute() or ".." in p.parts or not p.parts or "\x00" in str(p):
            raise UploadRejected(f"Refused the file path {str(p)[:200]!r}.")
    key, folder = _new_folder()
    try:
        for upload, p in zip(files, relative, strict=True):
            _save(upload, folder.joinpath(*p.parts))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    tops = {p.parts[0] for p in relative}
    if len(tops) == 1 and all(len(p.parts) > 1 for p in relative):
        top = tops.pop()
        return StoredUpload(f"{key}/{top}", top, len(files))
    return StoredUpload(key, "", len(files))


def stored_path(source: str) -> Path:
    """The stored input named by a job's ``source`` param; refuses paths outside an upload."""
    parts = _checked_parts(source)
    root = upload_root().resolve()
    path = root.joinpath(*parts).resolve()
    if not path.is_relative_to(root / parts[0]):
        raise UploadMissing(f"upload path {source!r} leaves its upload folder")
    if not path.exists():
        raise UploadMissing(
            f"the uploaded input {source!r} is no longer stored (uploads are removed once "
            "their import succeeded); upload it again"
        )
    return path


def remove_upload(source: str) -> None:
    """Delete the whole upload folder that ``source`` lies in."""
    shutil.rmtree(upload_root() / _checked_parts(source)[0], ignore_errors=True)


def _checked_parts(source: str) -> tuple[str, ...]:
    path = PurePosixPath(source) if isinstance(source, str) else None
    if (
        path is None
        or path.is_absolute()
        or ".." in path.parts
        or not path.parts
        or not _UPLOAD_FOLDER.match(path.parts[0])
    ):
        raise UploadMissing(f"{source!r} is not a stored upload's path")
    return path.parts


def _new_folder() -> tuple[str, Path]:
    key = uuid.uuid4().hex
    folder = upload_root() / key
    folder.mkdir(parents=True)
    return key, folder


def _save(upload: UploadedFile, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
