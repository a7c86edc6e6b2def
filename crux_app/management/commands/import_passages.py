"""manage.py import_passages --collection NAME FILE (passage texts, TSV or JSONL)."""

from ._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        'Import passage texts: pid<TAB>text lines, or JSONL {"id", "contents"} (or "text") '
        "objects. Gives text-less passages (created by --add-missing-passages) their text and "
        "creates passages the collection lacks; a passage that has another text already is an "
        "error. The collection must exist."
    )
    format_name = "passages"

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        parser.add_argument("file", help="the passages file")

    def handle_import(self, **options) -> None:
        self.run_import(options["collection"], options["file"])
