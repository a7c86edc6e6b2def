"""``manage.py check_backup FILE [--keep]``: restore a pg_dump archive (``pg_dump -Fc``, as
scripts/backup.sh writes it) into a scratch database and print its migrations and row counts;
exit 1 when it does not restore."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from operations.backup_check import BackupRefused, check_backup


class Command(BaseCommand):
    help = "Restore a pg_dump archive into a scratch database and report its tables and counts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="a pg_dump custom-format archive (-Fc)")
        parser.add_argument(
            "--keep", action="store_true", help="keep the scratch database (its name is printed)"
        )

    def handle(self, *args: object, file: Path, keep: bool, **options: object) -> None:
        try:
            report = check_backup(file, keep=keep)
        except BackupRefused as refused:
            raise CommandError(str(refused), returncode=1) from None
        write = self.stdout.write
        write(f"{file}: restores ({report.applied_migrations} migrations applied)")
        for table, rows in sorted(report.table_rows.items()):
            write(f"  {table}: {rows} rows")
        if report.unapplied:
            write(
                f"{len(report.unapplied)} migrations of this code are not applied in the backup "
                "(it is older: run manage.py migrate after restoring): "
                + ", ".join(report.unapplied)
            )
        if report.missing_tables:
            write("tables this code has and the backup lacks: " + ", ".join(report.missing_tables))
        if report.unknown:
            write(
                "migrations in the backup unknown to this code (it is newer than the code): "
                + ", ".join(report.unknown)
            )
        write(
            f"scratch database {report.scratch_database} kept"
            if keep
            else "scratch database dropped"
        )
