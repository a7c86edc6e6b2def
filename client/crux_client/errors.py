"""What the client raises."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """The server refused a request: its status, ``detail`` and per-field ``errors``."""

    def __init__(self, status: int, detail: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail
        self.errors = errors or {}


class JobFailed(Exception):
    """A job ``wait`` followed ended failed or cancelled; ``job`` is its last state."""

    def __init__(self, job: dict[str, Any]) -> None:
        super().__init__(f"job #{job['id']} ({job['kind']}) {job['state']}: {job['message']}")
        self.job = job


class ParamsRefused(ValueError):
    """The client refused a job's params before sending them, as the server's published
    schema would: ``name`` is the parameter (or ``kind``)."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"params.{name}: {message}" if name != "kind" else f"kind: {message}")
        self.name = name
