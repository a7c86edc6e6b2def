"""Uploads: the request body limits and where uploaded files wait for their import job."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .environment import BASE_DIR

# Django's default body limits (2.5 MB of form fields, uploaded files over 2.5 MB spooled to
# disk). Request bodies over DATA_UPLOAD_MAX_MEMORY_SIZE are refused before parsing, except a
# researcher's upload (crux_app.views.upload), whose files stream to disk up to UPLOAD_MAX_BYTES.
DATA_UPLOAD_MAX_NUMBER_FILES = 10_000  # a folder upload sends one file per file of the folder
# Uploaded files wait here (one uuid folder per upload, 0700, files 0600) for the import job.
UPLOAD_DIR = Path(os.environ.get("UPLOAD_DIR", BASE_DIR / "var" / "uploads"))
UPLOAD_MAX_BYTES = int(os.environ.get("UPLOAD_MAX_BYTES", str(2 * 1024**3)))  # one upload, 2 GiB
# The files of a failed (or cancelled) import are kept this long for a retry, then swept.
UPLOAD_FAILED_RETENTION_DAYS = int(os.environ.get("UPLOAD_FAILED_RETENTION_DAYS", "30"))
if UPLOAD_MAX_BYTES < 1 or UPLOAD_FAILED_RETENTION_DAYS < 0:
    raise ImproperlyConfigured(
        "UPLOAD_MAX_BYTES must be at least 1 and UPLOAD_FAILED_RETENTION_DAYS at least 0"
    )
