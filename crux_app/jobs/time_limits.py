"""Soft and hard time limits of a job's attempt, per job kind.

``JOB_TIME_LIMITS`` (``kind=soft:hard,...``, seconds) overrides the defaults
``JOB_SOFT_TIME_LIMIT_SECONDS`` / ``JOB_HARD_TIME_LIMIT_SECONDS`` for the kinds it names. The
clock is the attempt's start (``Job.running_since``), whichever worker runs which shard.
Settings import the parser, so this module imports no model.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ImproperlyConfigured


@dataclass(frozen=True)
class TimeLimits:
    soft_s: float
    hard_s: float


def parse_time_limits(text: str) -> dict[str, TimeLimits]:
    """``kind=soft:hard,kind=soft:hard`` -> limits per kind; anything else stops the settings."""
    limits: dict[str, TimeLimits] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, values = (t.strip() for t in part.partition("="))
        soft_text, _, hard_text = values.partition(":")
        try:
            soft, hard = float(soft_text), float(hard_text)
        except ValueError:
            soft = hard = -1.0
        if not kind or not 0 < soft <= hard:
            raise ImproperlyConfigured(
                f"JOB_TIME_LIMITS: '{part}' is not kind=soft:hard (seconds, 0 < soft <= hard)"
            )
        limits[kind] = TimeLimits(soft, hard)
    return limits


def limits_for(kind: str) -> TimeLimits:
    """The kind's limits (the defaults unless JOB_TIME_LIMITS names it)."""
    from django.conf import settings

    default = TimeLimits(settings.JOB_SOFT_TIME_LIMIT_SECONDS, settings.JOB_HARD_TIME_LIMIT_SECONDS)
    return settings.JOB_TIME_LIMITS.get(kind, default)


def seconds_left(kind: str, running_since: datetime | None, now: datetime) -> TimeLimits | None:
    """Seconds left to the soft and hard limits of an attempt (None before it started)."""
    if running_since is None:
        return None
    limits = limits_for(kind)
    elapsed = (now - running_since).total_seconds()
    return TimeLimits(limits.soft_s - elapsed, limits.hard_s - elapsed)


def soft_limit_message(kind: str, limits: TimeLimits) -> str:
    return (
        f"soft time limit reached: a {kind} job may run {limits.soft_s:g} s "
        "(JOB_TIME_LIMITS / JOB_SOFT_TIME_LIMIT_SECONDS); stopped, stored results kept, "
        "Retry resumes"
    )


def hard_limit_message(kind: str, limits: TimeLimits) -> str:
    return (
        f"hard time limit reached: a {kind} job may run {limits.hard_s:g} s "
        "(JOB_TIME_LIMITS / JOB_HARD_TIME_LIMIT_SECONDS); its workers were abandoned, "
        "stored results kept, Retry resumes"
    )
