"""How pages name a job: its kind's label (or the variant its parameters make, e.g.
"Judge answerability (distribution)"), its number, and a short description of its parameters
that every kind declares in the catalog. Never the raw kind name, never a cut parameter."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from crux_app.jobs.catalog import CATALOG, ParamsText
from crux_app.models import Job

logger = logging.getLogger(__name__)


def _words(make: ParamsText | None, params: Mapping[str, Any], kind: str) -> str:
    if make is None:
        return ""
    try:
        return make(params if isinstance(params, Mapping) else {})
    except (KeyError, TypeError, ValueError) as error:
        # A job stored by an older release may lack a parameter: its name falls back.
        logger.info("job kind %s cannot describe params %r: %s", kind, params, error)
        return ""


def kind_title(kind: str, params: Mapping[str, Any] | None = None) -> str:
    """The kind's name for a job with these params (its label, or the variant's name); the
    raw kind for kinds no longer in the catalog."""
    entry = CATALOG.get(kind)
    if entry is None:
        return kind
    return _words(entry.title, params or {}, kind) or entry.label


def job_title(job: Job) -> str:
    """The job's name as pages show it: "Judge answerability (distribution) #6"."""
    return f"{kind_title(job.kind, job.params)} #{job.pk}"


def job_params_text(job: Job) -> str:
    """A short description of the job's parameters ("" when its kind declares none)."""
    entry = CATALOG.get(job.kind)
    if entry is None:
        return ""
    return _words(entry.describe, job.params or {}, job.kind)


def job_unit(job: Job) -> str:
    """What the job's progress counts ("items" when its kind does not say)."""
    entry = CATALOG.get(job.kind)
    return entry.unit if entry else "items"
