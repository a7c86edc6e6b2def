"""Who is acting, for the audit triggers: one context manager sets it for a request (the
middleware, ``crux_app.audit.middleware``), a job (Celery's task signals) or a command.

The context is kept in a context variable and copied to the database session's setting
``audit.context`` (JSON) that the triggers read. It is set with ``set_config(..., false)``
rather than ``SET LOCAL`` because a request's writes in autocommit are each a transaction of
their own; the setting is restored when the context ends, and a connection opened inside a
context gets it on connection (``connection_created``), so it never outlives its request or
job on a persistent connection.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any

from django.db import connection
from psycopg.pq import TransactionStatus

SETTING = "audit.context"
_current: ContextVar[dict[str, Any] | None] = ContextVar("audit_context", default=None)


def current() -> dict[str, Any]:
    """The acting user, origin and where-from of this request or job ({} when unknown)."""
    return dict(_current.get() or {})


def _apply(context: dict[str, Any] | None, db: Any = None) -> None:
    """Copy ``context`` to the open database session (a closed one gets it when it opens)."""
    db = db or connection
    if db.vendor != "postgresql" or db.connection is None or db.needs_rollback:
        return
    raw = db.connection
    if raw.info.transaction_status == TransactionStatus.INERROR:
        return  # the rollback that must come restores the setting anyway
    # On the driver's connection: a session setting, not one of the request's queries (the
    # pages' query budgets count what they read).
    raw.execute("SELECT set_config(%s, %s, false)", [SETTING, json.dumps(context or {})])


@contextmanager
def audit_context(**fields: Any) -> Iterator[dict[str, Any]]:
    """Act as ``fields`` (user_id, username, origin, and where-from keys) until the block ends;
    an inner context adds to the outer one."""
    merged = {**current(), **{k: v for k, v in fields.items() if v is not None}}
    token = _current.set(merged)
    _apply(merged)
    try:
        yield merged
    finally:
        _current.reset(token)
        _apply(_current.get())


def bind_user(user: Any, **fields: Any) -> None:
    """Name the acting user inside the current context (an API token's user is known only
    once the API view authenticates it)."""
    if _current.get() is None:
        return
    merged = {**current(), **user_fields(user), **fields}
    _current.set(merged)
    _apply(merged)


def user_fields(user: Any) -> dict[str, Any]:
    """The context's words for ``user`` ({} for nobody or an anonymous visitor)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return {}
    return {"user_id": user.pk, "username": user.get_username()}


def on_connection_created(sender: Any, connection: Any, **kwargs: Any) -> None:
    """A connection opened inside a context starts with it."""
    if _current.get() is not None:
        _apply(_current.get(), connection)


_job_tokens: dict[str, Token] = {}


def on_task_prerun(task_id: str = "", task: Any = None, args: Any = None, **kwargs: Any) -> None:
    """A job's task acts as the job's creator, from the job."""
    from crux_app.jobs.catalog import job_task_name
    from crux_app.models import Job

    name = getattr(task, "name", "") or ""
    if not name.startswith(job_task_name("")) or not args or not str(args[0]).isdigit():
        return
    job = Job.objects.filter(pk=int(args[0])).select_related("created_by").first()
    if job is None:
        return
    fields = {"origin": "job", "job": job.pk, "job_kind": job.kind, **user_fields(job.created_by)}
    _job_tokens[task_id] = _current.set(fields)
    _apply(fields)


def on_task_postrun(task_id: str = "", **kwargs: Any) -> None:
    """The job's context ends with its task."""
    token = _job_tokens.pop(task_id, None)
    if token is not None:
        _current.reset(token)
        _apply(_current.get())
