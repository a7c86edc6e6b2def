"""Uploaded files kept for the import job: one uuid folder per upload under ``UPLOAD_DIR``.

The web process writes them (``store_file``, ``store_folder``) and hands the job a path
relative to ``UPLOAD_DIR``; the worker finds the files again with ``stored_path`` and removes
the upload's folder with ``remove_upload`` once its import succeeded. A failed import keeps its
files, so that retrying the job imports them again (or a replacement, ``replace_import_upload``),
until ``sweep_uploads`` removes them ``UPLOAD_FAILED_RETENTION_DAYS`` after the failure.

Uploads hold unpublished research data: folders are created 0700 and files 0600 (the web
server and the workers run as one user), and one upload holds at most ``UPLOAD_MAX_BYTES``.
Paths are checked before anything is written, so that a name the file system refuses (a
segment over 255 bytes, a path that is both a file and a folder) is a clear refusal, not a 500.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from crux_app.client_input import InputRefused, loads_json
from crux_app.private_files import open_private_file, private_folder

_UPLOAD_FOLDER = re.compile(r"^[0-9a-f]{32}$")
NAME_MAX_BYTES = 255  # the longest file or folder name Linux file systems store (UTF-8 bytes)
PATH_MAX_BYTES = 1024  # an upload's relative paths; the upload root's own path adds to it
# Errors of the file system that mean "this name or layout cannot be stored", not a broken disk.
_PATH_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.EISDIR, errno.ENOTDIR, errno.EEXIST})


class UploadRejected(Exception):
    """The upload itself is unusable (no files, paths that leave the folder); a 400."""

    status = 400


class UploadTooLarge(UploadRejected):
    """The upload holds more than ``UPLOAD_MAX_BYTES``; a 413."""

    status = 413


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
    _check_name(name, "file name")
    check_upload_size([upload])
    key, folder = _new_folder()
    _save_all(folder, [(upload, (name,))])
    return StoredUpload(f"{key}/{name}", name, 1)


def store_folder(files: list[UploadedFile], paths_json: str) -> StoredUpload:
    """Keep a folder sent by the browser: its files and their relative paths (a JSON list).

    The browser puts the chosen folder's own name first; the import starts inside it, and
    messages name files as the browser showed them: ``crux_labeling/labels/x.jsonl``.
    """
    if not files:
        raise UploadRejected("Choose a folder to upload.")
    try:
        paths = loads_json("relative_paths", paths_json or "[]")
    except InputRefused as refused:
        if refused.field != "relative_paths":  # one path is text PostgreSQL cannot store
            raise UploadRejected(f"Refused the file path {refused}.") from None
        paths = None  # not a JSON list of paths (malformed, too deep, a huge number)
    if not isinstance(paths, list) or len(paths) != len(files):
        raise UploadRejected("The folder's file paths did not arrive; enable JavaScript.")
    if not all(isinstance(p, str) for p in paths):
        raise UploadRejected("The folder's file paths must be strings.")
    relative = [PurePosixPath(p) for p in paths]
    for p in relative:
        if p.is_absolute() or ".." in p.parts or not p.parts:
            raise UploadRejected(f"Refused the file path {str(p)[:200]!r}.")
    _check_layout(relative)
    check_upload_size(files)
    key, folder = _new_folder()
    _save_all(folder, [(upload, p.parts) for upload, p in zip(files, relative, strict=True)])
    tops = {p.parts[0] for p in relative}
    if len(tops) == 1 and all(len(p.parts) > 1 for p in relative):
        top = tops.pop()
        return StoredUpload(f"{key}/{top}", top, len(files))
    return StoredUpload(key, "", len(files))


def stored_folders() -> list[Path]:
    """Every upload folder under ``UPLOAD_DIR`` (anything else there is left alone)."""
    root = upload_root()
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and _UPLOAD_FOLDER.match(p.name))


def upload_folder_name(source: str) -> str:
    """The upload folder that a job's ``source`` lies in."""
    return _checked_parts(source)[0]


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
            f"their import succeeded, and {settings.UPLOAD_FAILED_RETENTION_DAYS} days after it "
            "failed); upload it again from the job's page"
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


def check_upload_size(files: list[UploadedFile]) -> None:
    """Refuse files that hold more than ``UPLOAD_MAX_BYTES`` together, before storing any."""
    limit = settings.UPLOAD_MAX_BYTES
    total = sum(upload.size or 0 for upload in files)
    if total > limit:
        raise UploadTooLarge(
            f"The upload holds {_size(total)}; at most {_size(limit)} may be uploaded at once "
            "(UPLOAD_MAX_BYTES). Import a large release with the import commands instead."
        )


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 1024**2 else f"{n:,} bytes ({n / 1024**3:.2f} GiB)"


def _check_name(name: str, what: str) -> None:
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > NAME_MAX_BYTES:
        raise UploadRejected(
            f"The {what} {name[:40]!r}... is {size} bytes long in UTF-8; file systems store at "
            f"most {NAME_MAX_BYTES}. Rename it and upload again."
        )


def _check_layout(relative: list[PurePosixPath]) -> None:
    """Refuse paths the file system cannot hold all together: names over 255 bytes, a path
    listed twice, a path that is a file and also a folder of another file."""
    files: set[PurePosixPath] = set()
    for p in relative:
        for part in p.parts:
            _check_name(part, "name in the path")
        if len(str(p).encode("utf-8", "surrogatepass")) > PATH_MAX_BYTES:
            raise UploadRejected(
                f"The file path {str(p)[:60]!r}... is longer than {PATH_MAX_BYTES} bytes."
            )
        if p in files:
            raise UploadRejected(f"The file path {str(p)[:200]!r} is listed twice.")
        files.add(p)
    for p in relative:
        for parent in p.parents:
            if parent in files:
                raise UploadRejected(
                    f"The path {str(parent)[:200]!r} is both a file and the folder of "
                    f"{str(p)[:200]!r}."
                )


def _new_folder() -> tuple[str, Path]:
    root = upload_root()
    if not root.is_dir():
        private_folder(root, parents=True, exist_ok=True)
    key = uuid.uuid4().hex
    folder = root / key
    private_folder(folder)
    return key, folder


def _save_all(folder: Path, targets: list[tuple[UploadedFile, tuple[str, ...]]]) -> None:
    """Write every file under ``folder``; on any failure nothing of the upload stays."""
    current = ""
    try:
        for upload, parts in targets:
            current = "/".join(parts)
            _save(upload, folder, parts)
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        if error.errno in _PATH_ERRNOS:
            raise UploadRejected(
                f"The file system refused the path {current[:200]!r}: {os.strerror(error.errno)}."
            ) from error
        raise
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _save(upload: UploadedFile, folder: Path, parts: tuple[str, ...]) -> None:
    parent = folder
    for part in parts[:-1]:
        parent = parent / part
        if not parent.is_dir():
            private_folder(parent)
    target = parent / parts[-1]
    # O_EXCL: a second file at the same path is an error, never a silent overwrite.
    descriptor = open_private_file(target)
    with os.fdopen(descriptor, "wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
