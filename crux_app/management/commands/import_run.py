"""manage.py import_run --collection NAME --name TAG [--add-missing-passages] FILE (TREC run)."""

from ._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        "Import a TREC run (qid Q0 pid rank score tag) into an existing collection; its topics "
        "must be there, and its passages too unless --add-missing-passages is given."
    )
    format_name = "run"
    source_help = "the run file"
