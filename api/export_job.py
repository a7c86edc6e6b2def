"""The ``export`` job: an export kind's rows written to a file by a worker (queue ``cpu``),
then downloadable through the API until ``API_EXPORT_TTL_SECONDS`` have passed.

The job runs as one shard of one item under the job runner's lease (a second delivery of its
task does nothing); the rows are read through a server-side cursor and written to a temporary
file renamed into place, so a failed job leaves no file. Expired files are deleted after
every export and when a download finds one expired.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from api.export_kinds import EXPORT_KINDS, ExportKind, ExportRows
from api.models import ExportFile
from api.streaming import csv_chunks, json_chunks
from crux_app.access import Access, as_access
from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.service import start_job
from crux_app.models import Collection, Job
from crux_app.private_files import open_private_file, private_folder

KIND = "export"
FORMATS = {"csv": "text/csv; charset=utf-8", "json": "application/json"}
EXPORT_ITEM = "file"
logger = logging.getLogger(__name__)


class ExportRefused(ValueError):
    """Parameters the export kind's form refused: ``errors`` by field."""

    def __init__(self, errors: Mapping[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
        self.errors = dict(errors)


def export_kind(name: str) -> ExportKind:
    if name not in EXPORT_KINDS:
        known = ", ".join(sorted(EXPORT_KINDS))
        raise ExportRefused({"kind": [f"no export kind {name[:60]!r}; kinds: {known}"]})
    return EXPORT_KINDS[name]


def export_scope(cleaned: Mapping[str, Any]) -> tuple[str, Collection] | None:
    """The collection an export reads and the parameter naming it: the first cleaned value
    that is a collection or belongs to one (a campaign); None when it names none."""
    for name, value in cleaned.items():
        found = value if isinstance(value, Collection) else getattr(value, "collection", None)
        if isinstance(found, Collection):
            return name, found
    return None


def _valid_data(kind: ExportKind, params: Mapping[str, Any], who: Access) -> dict[str, Any]:
    """The kind's form's cleaned data; a collection ``who`` may not see is refused as one that
    does not exist (the form's own words for a name it does not know)."""
    form = kind.form_class(dict(params))
    if not form.is_valid():
        raise ExportRefused({k: [str(m) for m in v] for k, v in form.errors.items()})
    scope = export_scope(form.cleaned_data)
    if scope is not None:
        name, collection = scope
        if not Collection.objects.visible_to(who).filter(pk=collection.pk).exists():
            raise ExportRefused({name: [f"no {name} named {str(params.get(name))[:100]!r}"]})
    return form.cleaned_data


def export_rows(kind: ExportKind, params: Mapping[str, Any], who: object) -> ExportRows:
    """The kind's rows for ``params`` (text fields, as a form gets them), if ``who`` (an
    account or a request) may read the collection they come from."""
    return _read(kind, _valid_data(kind, params, as_access(who)))


def _read(kind: ExportKind, data: Mapping[str, Any]) -> ExportRows:
    try:
        return kind.read(data)
    except forms.ValidationError as error:
        raise ExportRefused(error.message_dict) from None


def start_export(kind_name: str, params: Mapping[str, Any], fmt: str, who: object) -> Job:
    """Validate the export now (400s before any job exists), then start its job, of the
    collection it reads (so the job and its download are seen by who may see that)."""
    kind = export_kind(kind_name)
    if fmt not in FORMATS:
        raise ExportRefused({"format": [f"format must be one of {', '.join(FORMATS)}"]})
    access = as_access(who)
    data = _valid_data(kind, params, access)
    _read(kind, data)  # reads nothing yet: the rows are a lazy cursor
    scope = export_scope(data)
    job_params = {"export": kind.name, "format": fmt, "params": dict(params)}
    collection = scope[1] if scope else None
    return start_job(KIND, job_params, collection=collection, user=access.user)


def export_dir() -> Path:
    return Path(settings.API_EXPORT_DIR)


def _chunks(rows: ExportRows, fmt: str) -> Iterator[bytes]:
    if fmt == "csv":
        return csv_chunks(rows.rows, rows.columns)
    return json_chunks({"export": rows.name}, "rows", rows.rows)


def run_export_job(job: Job) -> Job:
    """Write the export's file; the job ends succeeded with its row count, or failed."""
    with fail_job_on_error(job):
        kind = export_kind(str(job.params.get("export", "")))
        fmt = str(job.params.get("format", ""))
        if fmt not in FORMATS:
            raise ExportRefused({"format": [f"format must be one of {', '.join(FORMATS)}"]})
        params = job.params.get("params") or {}

        def process(batch: list[str]) -> str:
            # Read as its starter (their workspaces now): a lost membership reads nothing.
            rows = export_rows(kind, params, job.created_by or AnonymousUser())
            written = write_export(job, rows, fmt)
            return f"exported {written.rows:,} rows ({written.size:,} bytes)"

        run_batches(job, [[EXPORT_ITEM]], process, retries=0, raise_errors=True)
    sweep_expired_exports()
    job.refresh_from_db()
    return job


def write_export(job: Job, rows: ExportRows, fmt: str) -> ExportFile:
    """The rows into ``API_EXPORT_DIR/<job>-<random>.<fmt>`` (a temporary file renamed into
    place; the folder 0700 and the file 0600, as uploads), recorded as the job's ``ExportFile``."""
    folder = private_folder(export_dir(), parents=True, exist_ok=True)
    name = f"{job.pk}-{secrets.token_hex(8)}.{fmt}"
    partial = folder / f".{name}.part"
    size, counted = 0, [0]

    def counting() -> Iterator[Mapping[str, Any]]:
        for row in rows.rows:
            counted[0] += 1
            yield row

    try:
        with os.fdopen(open_private_file(partial), "wb") as out:
            for chunk in _chunks(ExportRows(rows.columns, counting(), rows.name), fmt):
                out.write(chunk)
                size += len(chunk)
        os.replace(partial, folder / name)
    finally:
        partial.unlink(missing_ok=True)  # a failed export leaves no file
    previous = ExportFile.objects.filter(job=job).first()
    if previous is not None:  # a retried export replaces its file
        _remove(previous.path)
        previous.delete()
    return ExportFile.objects.create(
        job=job,
        path=name,
        filename=f"{_safe(rows.name)}.{fmt}",
        content_type=FORMATS[fmt],
        rows=counted[0],
        size=size,
        expires_at=timezone.now() + timedelta(seconds=settings.API_EXPORT_TTL_SECONDS),
    )


def _safe(stem: str) -> str:
    """A file name's stem of letters, digits, ``-``, ``_`` and ``.`` (a header's value)."""
    kept = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in stem)
    return kept.strip(".")[:150] or "export"


def _remove(relative: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        (export_dir() / relative).unlink()


def expire(export: ExportFile) -> None:
    _remove(export.path)
    export.delete()


def sweep_expired_exports(now: datetime | None = None) -> int:
    """Delete the files (and rows) of expired exports; returns how many."""
    expired = list(ExportFile.objects.filter(expires_at__lte=now or timezone.now()))
    for export in expired:
        expire(export)
    if expired:
        logger.info("deleted %d expired export file(s)", len(expired))
    return len(expired)
