"""What ``/readyz`` checks: the database, the broker, the cache, and a live worker per queue.

Each check answers ok or not with a short reason made here (an exception's class name, a count),
never the exception's text: a driver's message may quote a host, a user or a connection string.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from kombu import Connection

from crux_app.jobs.heartbeat import live_workers, stale_after_s

from .queues import declared_queues

BROKER_TIMEOUT_SECONDS = 2.0


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str = ""

    def as_json(self) -> dict[str, object]:
        return {"ok": self.ok, "detail": self.detail} if self.detail else {"ok": self.ok}


def _failed(name: str, error: BaseException) -> Check:
    return Check(name, False, f"{type(error).__name__}")


def check_database() -> Check:
    """One ``SELECT 1`` on the default database."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any driver error means not ready; reported by class only
        return _failed("database", error)
    return Check("database", True)


def check_broker() -> Check:
    """A fresh connection to the Celery broker, bounded by BROKER_TIMEOUT_SECONDS."""
    options = dict(getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {})
    options.setdefault("socket_connect_timeout", BROKER_TIMEOUT_SECONDS)
    options.setdefault("socket_timeout", BROKER_TIMEOUT_SECONDS)
    try:
        with Connection(
            settings.CELERY_BROKER_URL,
            connect_timeout=BROKER_TIMEOUT_SECONDS,
            transport_options=options,
        ) as broker:
            broker.ensure_connection(
                max_retries=1, timeout=BROKER_TIMEOUT_SECONDS, interval_start=0, interval_step=0
            )
            if broker.transport.driver_type == "redis":
                broker.default_channel.client.ping()
            elif broker.transport.driver_type == "filesystem":
                folder = options.get("data_folder_in")
                if folder and not Path(folder).is_dir():
                    return Check("broker", False, "the broker's folder is missing")
    except Exception as error:  # unreachable, refused, timed out: not ready
        return _failed("broker", error)
    return Check("broker", True)


def check_cache() -> Check:
    """A value written to the default cache reads back."""
    key, value = f"readyz:{secrets.token_hex(8)}", secrets.token_hex(8)
    try:
        cache.set(key, value, 10)
        ok = cache.get(key) == value
        cache.delete(key)
    except Exception as error:  # a cache server away: not ready
        return _failed("cache", error)
    return Check("cache", ok, "" if ok else "value did not read back")


def check_queues() -> list[Check]:
    """Per declared queue: a worker consuming it reported within ``stale_after_s()``."""
    try:
        workers = list(live_workers().values_list("queues", flat=True))
    except Exception as error:  # the database is away: every queue is unknown
        return [_failed(f"queue:{queue}", error) for queue in declared_queues()]
    checks = []
    for queue in declared_queues():
        serving = sum(1 for queues in workers if queue in queues)
        detail = (
            f"{serving} live worker(s)"
            if serving
            else f"no worker heartbeat within {stale_after_s():g} s"
        )
        checks.append(Check(f"queue:{queue}", serving > 0, detail))
    return checks


def readiness() -> list[Check]:
    """Every check, in a fixed order."""
    return [check_database(), check_broker(), check_cache(), *check_queues()]
