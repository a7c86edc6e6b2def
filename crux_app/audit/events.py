"""What the application records itself, beside the triggers' row changes: an import (file,
format, rows), an export downloaded. Written in the caller's transaction, with the acting
context of ``crux_app.audit.context``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from crux_app.models import AuditEvent

from .context import current

IMPORT = "import"
ARCHIVE_IMPORT = "archive.import"  # a collection archive restored (``import_collection``)
EXPORT_DOWNLOAD = "export.download"


def record_event(kind: str, collection_id: int | None = None, **detail: Any) -> AuditEvent:
    """Append one event of ``kind`` (about ``collection_id``) by the acting user."""
    context = current()
    return AuditEvent.objects.create(
        kind=kind,
        collection_id=collection_id,
        user_id=context.pop("user_id", None),
        username=context.pop("username", ""),
        origin=context.pop("origin", ""),
        context={k: v for k, v in context.items() if v is not None},
        detail=detail,
    )


def record_import(result: Any, source: str, label: str = "") -> AuditEvent:
    """An import's file, format and rows per kind (``ImportResult``)."""
    return record_event(
        IMPORT,
        result.collection_id,
        format=result.format,
        collection=result.collection,
        file=label or str(source),
        rows=dict(result.counts),
        new_collection=result.collection_created,
    )


def audited_import(
    importer: Callable[..., Any], collection: str, source: Any, **params: Any
) -> Any:
    """Run ``importer`` and record its event in the same transaction (an import that fails
    leaves neither rows nor a record)."""
    with transaction.atomic():
        result = importer(collection, source, **params)
        record_import(result, source, params.get("label", ""))
    return result
