"""manage.py import_qa --collection NAME [--run NAME] FILE (QA JSONL)."""

from ._import_base import ImportCommand


class Command(ImportCommand):
    help = "Import QA records (id, question, answers, contexts) from a JSONL file."
    format_name = "qa"
    source_help = "the JSONL file"
