"""The ``collection_archive`` job: a collection's archive (``crux_app.dataio.archive.export``,
the same as ``manage.py export_collection``) written by a worker on the ``cpu`` queue, then
downloadable as an export (``GET /api/v1/exports/<job id>/download/``) until it expires.

Started from the collection page's "Export as archive" button and from
``POST /api/v1/collections/<name>/archive/``, by researchers (as the other exports).
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from api.export_job import _remove, _safe, export_dir, sweep_expired_exports
from api.models import ExportFile
from crux_app.dataio.archive.export import export_collection
from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.service import start_job
from crux_app.models import Collection, Job
from crux_app.private_files import private_folder

KIND = "collection_archive"
CONTENT_TYPE = "application/gzip"
ARCHIVE_ITEM = "archive"


def start_collection_archive(
    collection: Collection, user: AbstractBaseUser | None, *, with_accounts: bool = False
) -> Job:
    """Start the archive job of ``collection`` (its file is the job's download)."""
    return start_job(KIND, {"with_accounts": with_accounts}, collection=collection, user=user)


def run_collection_archive_job(job: Job) -> Job:
    """Write the archive; the job ends succeeded with its row count, or failed."""
    with fail_job_on_error(job):

        def process(batch: list[str]) -> str:
            written = write_archive(job)
            return f"archived {written.rows:,} rows ({written.size:,} bytes)"

        run_batches(job, [[ARCHIVE_ITEM]], process, retries=0, raise_errors=True)
    sweep_expired_exports()
    job.refresh_from_db()
    return job


def write_archive(job: Job) -> ExportFile:
    """The archive into ``API_EXPORT_DIR/<job>-<random>.tar.gz`` (private, as the exports),
    recorded as the job's ``ExportFile``."""
    folder = private_folder(export_dir(), parents=True, exist_ok=True)
    name = f"{job.pk}-{secrets.token_hex(8)}.tar.gz"
    collection = job.collection
    if collection is None:
        raise ValueError("the collection of this archive job was deleted")
    manifest = export_collection(
        collection, Path(folder) / name, with_accounts=bool(job.params.get("with_accounts"))
    )
    previous = ExportFile.objects.filter(job=job).first()
    if previous is not None:  # a retried job replaces its file
        _remove(previous.path)
        previous.delete()
    return ExportFile.objects.create(
        job=job,
        path=name,
        filename=f"{_safe(collection.name)}.tar.gz",
        content_type=CONTENT_TYPE,
        rows=sum(table["rows"] for table in manifest["tables"]),
        size=(Path(folder) / name).stat().st_size,
        expires_at=timezone.now() + timedelta(seconds=settings.API_EXPORT_TTL_SECONDS),
    )
