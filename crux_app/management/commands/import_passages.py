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
    source_help = "the passages file"
