"""manage.py import_topics --collection NAME FILE (TREC topics, TSV or JSONL)."""

from ._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        'Import TREC topics: qid<TAB>text lines, or JSONL {"id", "text"} objects (a file whose '
        "first character is { is JSONL). Creates the collection when it does not exist; "
        "re-importing updates the texts of the file's topics."
    )
    format_name = "topics"

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        parser.add_argument("file", help="the topics file")

    def handle_import(self, **options) -> None:
        self.run_import(options["collection"], options["file"])
