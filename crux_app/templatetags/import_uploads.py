"""Template tag for the job page: the replacement-upload form of a failed import."""

from __future__ import annotations

from django import template
from django.conf import settings

from crux_app.dataio.catalog import IMPORT_FORMATS
from crux_app.dataio.imports.job import NotReplaceable, check_replaceable
from crux_app.models import Job

register = template.Library()


@register.simple_tag
def replacement_upload(job: Job) -> dict[str, object] | None:
    """``{"source": "file"|"folder", "retention_days": N}`` when ``job``'s upload can be
    replaced, else None."""
    try:
        check_replaceable(job)
    except NotReplaceable:
        return None
    chosen = IMPORT_FORMATS.get(
        job.params.get("format", "") if isinstance(job.params, dict) else ""
    )
    if chosen is None:
        return None
    return {"source": chosen.source, "retention_days": settings.UPLOAD_FAILED_RETENTION_DAYS}
