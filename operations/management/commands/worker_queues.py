"""``manage.py worker_queues [--except gpu]``: the declared queues, comma-separated, for a
worker's ``-Q`` (deploy/Procfile's cpu worker consumes every queue but ``gpu``)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from operations.queues import declared_queues


class Command(BaseCommand):
    help = "Print the declared Celery queues, comma-separated (for celery worker -Q)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--except",
            dest="excluded",
            action="append",
            default=[],
            help="leave this queue out (repeatable), e.g. --except gpu",
        )

    def handle(self, *args: object, excluded: list[str], **options: object) -> None:
        queues = [queue for queue in declared_queues() if queue not in excluded]
        if not queues:
            raise CommandError("no queue is left")
        self.stdout.write(",".join(queues))
