"""Folders and files only the server's own user may read: unpublished research data (uploads
kept for their import, export files waiting for their download). Folders 0700, files 0600,
whatever the process's umask (the web server and the workers run as one user)."""

from __future__ import annotations

import os
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def private_folder(path: Path, *, parents: bool = False, exist_ok: bool = False) -> Path:
    """Make the folder (``Path.mkdir``'s ``parents`` and ``exist_ok``) and set it 0700, an
    existing one too (mkdir's mode passes through the umask and leaves an old folder as it
    was)."""
    path.mkdir(mode=FOLDER_MODE, parents=parents, exist_ok=exist_ok)
    path.chmod(FOLDER_MODE)
    return path


def open_private_file(path: Path) -> int:
    """A new file opened for writing, 0600: its descriptor. It must not exist yet (O_EXCL: no
    silent overwrite) and may not be a symbolic link."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    os.fchmod(descriptor, FILE_MODE)
    return descriptor
