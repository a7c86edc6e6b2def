"""Remove the stored uploads of failed or cancelled imports (and folders no job names) once
they are older than ``UPLOAD_FAILED_RETENTION_DAYS``; the worker also does this after every
import job. For cron on installs that import rarely."""

from django.core.management.base import BaseCommand, CommandParser

from crux_app.dataio.upload_sweep import sweep_failed_uploads


class Command(BaseCommand):
    help = (
        "Delete uploads of failed or cancelled import jobs, and upload folders no job names, "
        "unused for longer than UPLOAD_FAILED_RETENTION_DAYS (pending and running jobs' uploads "
        "are kept)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=retention_days,
            default=None,
            help="retention in days (default: the UPLOAD_FAILED_RETENTION_DAYS setting)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="list what would be removed, remove nothing"
        )

    def handle(self, *args, **options) -> None:
        result = sweep_failed_uploads(options["days"], dry_run=options["dry_run"])
        verb = "would remove" if options["dry_run"] else "removed"
        for name in result.removed:
            self.stdout.write(f"{verb} {name}")
        self.stdout.write(
            self.style.SUCCESS(f"{verb} {len(result.removed)} upload folder(s); kept {result.kept}")
        )


def retention_days(text: str) -> int:
    """argparse type: 0 to 36,500 days."""
    value = int(text)
    if not 0 <= value <= 36_500:
        raise ValueError(text)
    return value
