"""Template filters for the Jobs pages."""

from django import template

from crux_app.jobs import names
from crux_app.jobs.catalog import kind_label
from crux_app.models import Job

register = template.Library()


@register.filter
def duration(seconds: float | None) -> str:
    """Seconds as ``4.2 s``, ``3 min 5 s`` or ``1 h 2 min``; an empty string when unknown."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


@register.filter
def job_kind_label(kind: str) -> str:
    return kind_label(kind)


@register.filter
def job_title(job: Job) -> str:
    """The job's name: "Judge answerability (distribution) #6" (crux_app.jobs.names)."""
    return names.job_title(job)


@register.filter
def job_params(job: Job) -> str:
    """A short description of the job's parameters ("run bm25, top-3, 5 samples")."""
    return names.job_params_text(job)
