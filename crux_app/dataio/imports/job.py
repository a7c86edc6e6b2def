"""The ``import`` job: run one catalog importer on an upload stored under ``UPLOAD_DIR``.

The upload page stores the files and starts the job; the task (``crux_app.tasks.import_data``,
queue ``cpu``) runs the importer in its single transaction, so bad input fails the job with the
importer's ``FILE:LINE: reason`` and writes nothing. The stored files are deleted once the
import succeeded and kept when it failed: importers are idempotent upserts, so retrying the job
imports the same files again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from crux_app.audit.events import audited_import
from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.service import retry_job, start_job
from crux_app.models import Collection, Job, Workspace

from ..catalog import IMPORT_FORMATS
from ..collection_store import new_collections_in
from ..results import ImportResult
from ..uploads import StoredUpload, UploadMissing, remove_upload, stored_path

KIND = "import"
WARNINGS_SHOWN = 20

_FIXED = ("format", "collection", "source", "label", "workspace")


@dataclass(frozen=True)
class ImportJobParams:
    format: str
    collection: str
    source: str  # relative to settings.UPLOAD_DIR
    label: str = ""  # how messages name the input
    options: dict[str, Any] = field(default_factory=dict)  # the format's parameters
    workspace: str = ""  # where a new collection goes ("": the model's default, ``default``)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ImportJobParams:
        """Parse a Job's params, naming the field that is wrong."""
        for name in _FIXED:
            if not isinstance(params.get(name, ""), str):
                raise ValueError(f"job parameter {name!r} must be a string")
        chosen = IMPORT_FORMATS.get(params.get("format", ""))
        if chosen is None:
            known = ", ".join(IMPORT_FORMATS)
            raise ValueError(f"job parameter 'format' must be one of {known}")
        for name in ("collection", "source"):
            if not params.get(name):
                raise ValueError(f"job parameter {name!r} is missing")
        options = chosen.declared().parse(params)  # the format's declared parameters
        return cls(
            chosen.name,
            params["collection"],
            params["source"],
            params.get("label", ""),
            options,
            params.get("workspace", ""),
        )

    def as_params(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "collection": self.collection,
            "source": self.source,
            "label": self.label,
            **({"workspace": self.workspace} if self.workspace else {}),
            **self.options,
        }

    def new_collections_workspace(self) -> Workspace | None:
        """The workspace a collection this import makes goes to (None: ``default``)."""
        if not self.workspace:
            return None
        found = Workspace.objects.filter(name=self.workspace).first()
        if found is None:
            raise ValueError(f"workspace {self.workspace!r} no longer exists")
        return found


def start_import_job(config: ImportJobParams, user: AbstractBaseUser | None = None) -> Job:
    """A pending import job, shown under its collection when that already exists."""
    collection = Collection.objects.filter(name=config.collection).first()
    return start_job(KIND, config.as_params(), collection=collection, user=user)


class NotReplaceable(ValueError):
    """Only a failed or cancelled import job's upload can be replaced."""


def check_replaceable(job: Job) -> None:
    """Raise ``NotReplaceable`` unless ``job`` is an import that failed or was cancelled."""
    if job.kind != KIND:
        raise NotReplaceable(f"job #{job.pk} is not an import; it has no upload to replace")
    if job.state not in (Job.State.FAILED, Job.State.CANCELLED):
        raise NotReplaceable(
            f"job #{job.pk} is {job.state}; only a failed or cancelled import's upload "
            "can be replaced"
        )


def replace_import_upload(job: Job, stored: StoredUpload) -> Job:
    """Point a failed import job at a new upload and send it again; the old upload goes."""
    with transaction.atomic():
        locked = Job.objects.select_for_update().get(pk=job.pk)
        check_replaceable(locked)
        old_source = locked.params.get("source")
        locked.params = {**locked.params, "source": stored.source, "label": stored.label}
        locked.save(update_fields=["params"])
        job = retry_job(locked)
        if old_source != stored.source:
            transaction.on_commit(lambda: _remove_quietly(old_source))
    return job


def _remove_quietly(source: object) -> None:
    # A source that names no upload (an old job's, or swept) leaves nothing to remove.
    with contextlib.suppress(UploadMissing):
        remove_upload(source)


UPLOAD_ITEM = "upload"  # an import's one planned item


def run_import_job(job: Job) -> Job:
    """Import the job's stored upload; the job ends succeeded with a summary, or failed."""
    with fail_job_on_error(job):
        config = ImportJobParams.from_params(job.params)
        importer = IMPORT_FORMATS[config.format].importer

        def process(batch: Sequence[str]) -> str:
            with new_collections_in(config.new_collections_workspace()):
                result = audited_import(  # the rows and its audit record, one transaction
                    importer,
                    config.collection,
                    stored_path(config.source),
                    label=config.label,
                    **config.options,
                )
            if result.collection_id is not None and result.collection_id != job.collection_id:
                Job.objects.filter(pk=job.pk).update(collection_id=result.collection_id)
            return import_summary(result)

        # One shard of one item (the job's current upload, which a replace may change), under
        # a lease like every job: a second delivery of the task while it runs does nothing.
        # Imports are atomic: an error fails the job at once with its message.
        run_batches(job, [[UPLOAD_ITEM]], process, retries=0, raise_errors=True)
        job.refresh_from_db()
        if job.state == Job.State.SUCCEEDED:
            remove_upload(config.source)
    job.refresh_from_db()
    return job


def import_summary(result: ImportResult) -> str:
    """The result's rows per kind, then its warnings (the first ``WARNINGS_SHOWN``)."""
    text = result.summary()
    if result.warnings:
        shown = result.warnings[:WARNINGS_SHOWN]
        more = len(result.warnings) - len(shown)
        noun = "warning" if len(result.warnings) == 1 else "warnings"
        text += f". {len(result.warnings)} {noun}: " + "; ".join(shown)
        if more:
            text += f"; and {more} more"
    return text
