"""manage.py import_topics --collection NAME FILE (TREC topics, TSV or JSONL)."""

from ._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        'Import TREC topics: qid<TAB>text lines, or JSONL {"id", "text"} objects (a file whose '
        "first character is { is JSONL). Creates the collection when it does not exist; "
        "re-importing updates the texts of the file's topics."
    )
    format_name = "topics"
    source_help = "the topics file"
