"""``manage.py check_backup``: a pg_dump of the database restores into a scratch database whose
counts are reported; a damaged archive is refused; the scratch database is dropped."""

from __future__ import annotations

import os
import subprocess

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection

from crux_app.models import SubQuestion, Topic
from operations.backup_check import SCRATCH_PREFIX
from tests.crux_app.factories import make_collection, make_topic

pytestmark = pytest.mark.django_db(transaction=True)


def _dump(path) -> None:
    db = settings.DATABASES["default"]
    env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
    subprocess.run(
        [
            "pg_dump", "--format=custom", "--no-owner", "--file", str(path),
            "--host", db.get("HOST") or "127.0.0.1", "--port", str(db.get("PORT") or 5432),
            "--username", db.get("USER") or "postgres", db["NAME"],
        ],
        check=True, env=env, timeout=120,
    )  # fmt: skip


def _scratch_databases() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s", [SCRATCH_PREFIX + "%"]
        )
        return [row[0] for row in cursor.fetchall()]


def test_a_dump_restores_with_its_counts_and_the_scratch_database_goes(tmp_path, capsys):
    collection = make_collection("backup-demo")
    for index in range(3):
        make_topic(collection, f"t{index}")
    dump = tmp_path / "crux.dump"
    _dump(dump)

    call_command("check_backup", str(dump))
    out = capsys.readouterr().out
    assert f"{dump}: restores (" in out
    assert f"  crux_app_topic: {Topic.objects.count()} rows" in out
    assert f"  crux_app_subquestion: {SubQuestion.objects.count()} rows" in out
    assert "  crux_app_collection: 1 rows" in out
    assert "not applied" not in out  # a dump of today's schema
    assert "scratch database dropped" in out
    assert _scratch_databases() == []


def test_a_damaged_or_foreign_file_is_refused(tmp_path):
    dump = tmp_path / "crux.dump"
    make_topic(make_collection("backup-demo"), "t1")
    _dump(dump)
    damaged = tmp_path / "damaged.dump"
    data = dump.read_bytes()
    damaged.write_bytes(data[: len(data) // 2])
    with pytest.raises(CommandError, match="damaged.dump: pg_restore failed|not a readable") as e:
        call_command("check_backup", str(damaged))
    assert e.value.returncode == 1
    text = tmp_path / "notes.txt"
    text.write_text("not a dump\n")
    with pytest.raises(CommandError, match="notes.txt: not a readable pg_dump archive"):
        call_command("check_backup", str(text))
    with pytest.raises(CommandError, match="missing.dump: no such file"):
        call_command("check_backup", str(tmp_path / "missing.dump"))
    assert _scratch_databases() == []
