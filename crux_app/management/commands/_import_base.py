"""What every import command shares: the --collection option, error and count reporting."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crux_app.audit.context import audit_context
from crux_app.audit.events import audited_import
from crux_app.collection_names import collection_name_problem
from crux_app.dataio.catalog import IMPORT_FORMATS
from crux_app.dataio.errors import ImportFailure


class ImportCommand(BaseCommand):
    """Subclasses name their catalog format and say what its source is; the format's
    declared parameters (``crux_app.dataio.catalog``) are the command's options."""

    format_name = ""
    source_help = ""  # the positional argument's help: "the run file"

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        if self._writes_own_options():
            return
        IMPORT_FORMATS[self.format_name].declared().add_arguments(parser)
        parser.add_argument(self._source_argument(), help=self.source_help)

    def _writes_own_options(self) -> bool:
        """A subclass that adds its options and reads them in ``handle_import`` itself, rather
        than from its format's declared parameters (the older way, still accepted)."""
        return type(self).handle_import is not ImportCommand.handle_import

    def _source_argument(self) -> str:
        return "dir" if IMPORT_FORMATS[self.format_name].source == "folder" else "file"

    def run_import(self, collection: str, source: str, **params: object) -> None:
        """Run the import; bad input -> CommandError "FILE:LINE: reason", database unchanged."""
        problem = collection_name_problem(collection)
        if problem is not None:
            raise CommandError(f"--collection: {problem}")
        importer = IMPORT_FORMATS[self.format_name].importer
        progress = self.verbosity > 0 and sys.stderr.isatty()
        try:
            with audit_context(origin="command", command=self.format_name):
                result = audited_import(
                    importer, collection, Path(source), progress=progress, **params
                )
        except ImportFailure as failure:
            raise CommandError(str(failure)) from failure
        self.stdout.write(self.style.SUCCESS(result.summary()))
        for kind, number in result.counts.items():
            self.stdout.write(f"  {kind}: {number}")
        for warning in result.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))

    def handle(self, *args, **options) -> None:
        self.verbosity = options["verbosity"]
        if self._writes_own_options():
            self.handle_import(**options)
            return
        params = IMPORT_FORMATS[self.format_name].declared().from_options(options)
        self.run_import(options["collection"], options[self._source_argument()], **params)

    def handle_import(self, **options) -> None:
        """Overridden only by a subclass that writes its own options."""
