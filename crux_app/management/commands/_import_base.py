"""What every import command shares: the --collection option, error and count reporting."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crux_app.collection_names import collection_name_problem
from crux_app.dataio.catalog import IMPORT_FORMATS
from crux_app.dataio.errors import ImportFailure

ADD_MISSING_PASSAGES_HELP = (
    "create the passages the collection lacks, without text (a TREC run lists 1,000 per "
    "topic, most never judged); import_passages gives them their text later"
)


class ImportCommand(BaseCommand):
    """Subclasses name their catalog format and add their own arguments."""

    format_name = ""

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")

    def run_import(self, collection: str, source: str, **params: object) -> None:
        """Run the import; bad input -> CommandError "FILE:LINE: reason", database unchanged."""
        problem = collection_name_problem(collection)
        if problem is not None:
            raise CommandError(f"--collection: {problem}")
        importer = IMPORT_FORMATS[self.format_name].importer
        progress = self.verbosity > 0 and sys.stderr.isatty()
        try:
            result = importer(collection, Path(source), progress=progress, **params)
        except ImportFailure as failure:
            raise CommandError(str(failure)) from failure
        self.stdout.write(self.style.SUCCESS(result.summary()))
        for kind, number in result.counts.items():
            self.stdout.write(f"  {kind}: {number}")
        for warning in result.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))

    def handle(self, *args, **options) -> None:
        self.verbosity = options["verbosity"]
        self.handle_import(**options)

    def handle_import(self, **options) -> None:
        raise NotImplementedError
