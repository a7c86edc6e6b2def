"""Restore a ``pg_dump`` archive into a scratch database on this install's PostgreSQL server and
report what it holds: the migrations applied, and the rows of every table of this code's models.

The scratch database is created beside the configured one (same server and account) under a
fresh name and dropped afterwards, so checking a backup never touches the live data.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from django.apps import apps
from django.conf import settings
from django.db.migrations.loader import MigrationLoader
from psycopg import sql

RESTORE_TIMEOUT_SECONDS = 3600
SCRATCH_PREFIX = "crux_backup_check_"


class BackupRefused(ValueError):
    """The archive cannot be read or restored; the message says why."""


@dataclass
class BackupReport:
    scratch_database: str
    table_rows: dict[str, int] = field(default_factory=dict)  # this code's tables in the backup
    missing_tables: list[str] = field(default_factory=list)  # this code's tables it lacks
    applied_migrations: int = 0
    unapplied: list[str] = field(default_factory=list)  # this code's, not in the backup
    unknown: list[str] = field(default_factory=list)  # the backup's, unknown to this code


def _server() -> dict[str, str]:
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        raise BackupRefused("check_backup needs PostgreSQL (DATABASE_URL is not postgres://)")
    return {
        "host": str(db.get("HOST") or "127.0.0.1"),
        "port": str(db.get("PORT") or 5432),
        "user": str(db.get("USER") or "postgres"),
        "password": str(db.get("PASSWORD") or ""),
    }


def _connect(server: dict[str, str], dbname: str) -> psycopg.Connection:
    return psycopg.connect(dbname=dbname, autocommit=True, connect_timeout=10, **server)


def _pg_env(server: dict[str, str]) -> dict[str, str]:
    """The client tools' environment: the password never on a command line."""
    env = {**os.environ, "PGCONNECT_TIMEOUT": "10"}
    if server["password"]:
        env["PGPASSWORD"] = server["password"]
    return env


def _first_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[0] if lines else "no message"


def list_archive(path: Path) -> int:
    """The number of entries in the archive's table of contents; refuses anything else."""
    if not path.is_file():
        raise BackupRefused(f"{path}: no such file")
    listed = subprocess.run(
        ["pg_restore", "--list", str(path)], capture_output=True, text=True, timeout=300
    )
    if listed.returncode != 0:
        raise BackupRefused(
            f"{path}: not a readable pg_dump archive ({_first_error(listed.stderr)})"
        )
    return sum(1 for line in listed.stdout.splitlines() if line and not line.startswith(";"))


@contextmanager
def scratch_database(keep: bool = False) -> Iterator[tuple[dict[str, str], str]]:
    """A new empty database on the server, dropped on leaving unless ``keep``."""
    server = _server()
    name = f"{SCRATCH_PREFIX}{secrets.token_hex(6)}"
    maintenance = settings.DATABASES["default"]["NAME"]
    with _connect(server, maintenance) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield server, name
    finally:
        if not keep:
            with _connect(server, maintenance) as admin:
                admin.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )


def restore(path: Path, server: dict[str, str], name: str) -> None:
    """pg_restore the archive into ``name``, stopping at the first error."""
    restored = subprocess.run(
        [
            "pg_restore", "--no-owner", "--no-privileges", "--exit-on-error",
            "--host", server["host"], "--port", server["port"], "--username", server["user"],
            "--dbname", name, str(path),
        ],
        capture_output=True, text=True, env=_pg_env(server), timeout=RESTORE_TIMEOUT_SECONDS,
    )  # fmt: skip
    if restored.returncode != 0:
        raise BackupRefused(f"{path}: pg_restore failed ({_first_error(restored.stderr)})")


def inspect(server: dict[str, str], name: str) -> BackupReport:
    """What the restored database holds, against this code's models and migrations."""
    report = BackupReport(name)
    with _connect(server, name) as restored:
        tables = {
            row[0]
            for row in restored.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            )
        }
        if "django_migrations" not in tables:
            raise BackupRefused(
                "the backup has no django_migrations table: not this app's database"
            )
        applied = set(restored.execute("SELECT app, name FROM django_migrations").fetchall())
        for model in apps.get_models():
            table = model._meta.db_table
            if table in tables:
                count = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))
                report.table_rows[table] = restored.execute(count).fetchone()[0]
            elif model._meta.managed and not model._meta.proxy:
                report.missing_tables.append(table)
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    report.applied_migrations = len(applied)
    report.unapplied = sorted(f"{a}.{n}" for a, n in known - applied)
    local_apps = {app for app, _ in known}
    report.unknown = sorted(f"{a}.{n}" for a, n in applied - known if a in local_apps)
    if not report.table_rows:
        raise BackupRefused("the backup holds none of this app's tables")
    return report


def check_backup(path: Path, keep: bool = False) -> BackupReport:
    """Restore ``path`` into a scratch database and report on it."""
    list_archive(path)
    with scratch_database(keep) as (server, name):
        restore(path, server, name)
        return inspect(server, name)
