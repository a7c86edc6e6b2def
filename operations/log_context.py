"""The request id and job id of what this thread or task is doing, added to every log record."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
job_id: ContextVar[int | None] = ContextVar("job_id", default=None)


@contextmanager
def bound(variable: ContextVar, value: object) -> Iterator[None]:
    """``variable`` is ``value`` inside the block, and what it was after."""
    token = variable.set(value)
    try:
        yield
    finally:
        variable.reset(token)


class LogContextFilter(logging.Filter):
    """Sets ``record.request_id`` and ``record.job_id`` (None where there is none)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id.get()
        if getattr(record, "job_id", None) is None:
            record.job_id = job_id.get()
        return True
