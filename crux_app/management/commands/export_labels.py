"""manage.py export_labels --collection NAME --judge JUDGE --format qlabels|qrels OUT."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crux_app.dataio.catalog import EXPORT_FORMATS
from crux_app.dataio.errors import ExportFailure
from crux_app.dataio.export_labels import export_labels
from crux_app.read_parameters import JUDGE  # the declared read side


class Command(BaseCommand):
    help = "Write one judge's labels in the CRUX labeling platform's qlabels or qrels JSONL."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True)
        parser.add_argument(
            "--judge",
            required=True,
            type=JUDGE.option_value_of(str),
            help="judge name, e.g. annotator1",
        )
        parser.add_argument("--format", required=True, choices=EXPORT_FORMATS)
        parser.add_argument("out", help="output file")

    def handle(self, *args, **options) -> None:
        try:
            result = export_labels(
                options["collection"], options["judge"], options["format"], Path(options["out"])
            )
        except ExportFailure as failure:
            raise CommandError(str(failure)) from failure
        self.stdout.write(f"{result.lines} {result.format} lines written to {options['out']}")
