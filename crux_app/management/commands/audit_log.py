"""``manage.py audit_log --collection C [--kind K] [--user U] [--since T] [--until T]
--format json|csv``: a collection's audit trail, newest first (options from ``AuditFilter``)."""

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crux_app.audit.reading import AuditFilter, as_csv, as_row
from crux_app.models import Collection
from crux_app.parameters import ParameterError


class Command(BaseCommand):
    help = "Print a collection's audit trail (who changed what, when, from where) as JSON or CSV."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="the collection's name")
        AuditFilter.declared().add_arguments(parser)
        parser.add_argument("--format", choices=("json", "csv"), default="json")

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"--collection: no collection named {options['collection']!r}")
        try:
            chosen = AuditFilter.from_params(AuditFilter.declared().from_options(options))
        except (ParameterError, ValueError) as error:
            name = getattr(error, "name", None)
            raise CommandError(f"--{name}: {error}" if name else str(error)) from None
        events = chosen.events(collection.pk).iterator()
        if options["format"] == "csv":
            self.stdout.write(as_csv(events), ending="")
        else:
            self.stdout.write(json.dumps([as_row(e) for e in events], indent=1))
