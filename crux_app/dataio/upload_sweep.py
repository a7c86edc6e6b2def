"""Sweep uploads nobody will import: those of failed or cancelled import jobs, and folders no
job names, once older than ``UPLOAD_FAILED_RETENTION_DAYS``.

A successful import removes its own upload; a failed one keeps it for a retry. Without this
sweep those files would stay forever. The worker sweeps after every import job
(``crux_app.tasks.import_data``); ``manage.py sweep_uploads`` does the same from cron or by hand.
An upload of a pending or running job is never touched.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from crux_app.models import Job

from .uploads import UploadMissing, stored_folders, upload_folder_name

KIND = "import"  # crux_app.dataio.imports.job.KIND (that module imports the job runner)
# A folder no job names may be an upload whose job row is not committed yet: never younger.
ORPHAN_GRACE = timedelta(hours=1)
logger = logging.getLogger(__name__)


@dataclass
class SweepResult:
    removed: list[str] = field(default_factory=list)  # upload folder names
    kept: int = 0  # folders still in use or younger than the retention


def sweep_failed_uploads(
    retention_days: int | None = None, now: datetime | None = None, dry_run: bool = False
) -> SweepResult:
    """Remove the upload folders that are unused for longer than the retention."""
    days = settings.UPLOAD_FAILED_RETENTION_DAYS if retention_days is None else retention_days
    if days < 0:
        raise ValueError("the retention must be 0 or more days")
    now = now or timezone.now()
    cutoff = now - timedelta(days=days)
    result = SweepResult()
    folders = stored_folders()
    jobs = _jobs_by_folder() if folders else {}
    for folder in folders:
        named_by = jobs.get(folder.name, [])
        last_use = _last_use(folder, named_by)
        limit = cutoff if named_by else min(cutoff, now - ORPHAN_GRACE)
        if last_use is None or last_use > limit:
            result.kept += 1
            continue
        if not dry_run:
            shutil.rmtree(folder, ignore_errors=True)
            logger.info("swept upload %s (unused since %s)", folder.name, last_use.isoformat())
        result.removed.append(folder.name)
    return result


def _jobs_by_folder() -> dict[str, list[Job]]:
    found: dict[str, list[Job]] = {}
    for job in Job.objects.filter(kind=KIND).only("state", "params", "finished_at", "created_at"):
        source = job.params.get("source") if isinstance(job.params, dict) else None
        try:
            found.setdefault(upload_folder_name(source), []).append(job)
        except UploadMissing:
            continue  # a job whose source names no upload holds none
    return found


def _last_use(folder: Path, jobs: list[Job]) -> datetime | None:
    """When the upload was last needed; None while a job still needs it."""
    if any(not job.is_finished for job in jobs):
        return None
    if not jobs:  # stored, but its job was never created or was deleted
        return datetime.fromtimestamp(folder.stat().st_mtime, tz=timezone.get_current_timezone())
    return max(job.finished_at or job.created_at for job in jobs)
