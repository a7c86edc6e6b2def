"""The kinds of job the app can start, each bound by name to the Celery task that runs it.

The catalog names no method: each method registers its kinds from its ``AppConfig.ready``
(``registrations.py`` in its folder). Tasks are named, not imported, so the web process never
imports model code; a task whose name starts with ``gpu_`` is routed to the ``gpu`` queue
(settings.CELERY_TASK_ROUTES).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crux_app.models import Run, Topic

# (its demo collection's first run, first topic) -> (params, topic or None).
DemoJob = Callable[["Run", "Topic"], tuple[dict[str, Any], "Topic | None"]]


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str
    task_name: str
    description: str = ""
    demo: DemoJob | None = None  # a small job the demo queues
    demo_order: int = 0  # queue order of demo jobs on one worker (lower first)
    demo_collection: str = ""  # the demo collection it runs on ("": the demo QA collection)


class UnknownJobKind(ValueError):
    """A job kind that is not in the catalog."""


CATALOG: dict[str, JobKind] = {}


def register_kind(kind: JobKind) -> JobKind:
    """Add (or replace, by name) a job kind."""
    CATALOG[kind.name] = kind
    return kind


def get_kind(name: str) -> JobKind:
    try:
        return CATALOG[name]
    except KeyError:
        known = ", ".join(sorted(CATALOG))
        raise UnknownJobKind(f"unknown job kind {name!r}; known kinds: {known}") from None


def kind_label(name: str) -> str:
    """The kind's human label, or its raw name for kinds no longer in the catalog."""
    kind = CATALOG.get(name)
    return kind.label if kind else name


def demo_kinds() -> list[JobKind]:
    """Kinds with a demo job, in queue order."""
    return sorted((k for k in CATALOG.values() if k.demo), key=lambda k: (k.demo_order, k.name))
