"""manage.py import_nugget_ratings --collection NAME --judge JUDGE --kind human|llm FILE."""

from crux_app.management.commands._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        'Import one judge\'s nugget-passage ratings: one {"qid", "docid", "nugget", '
        '"rating"} object per line, rating 0-5 (CRUX\'s answerability scale with the nugget as '
        "the sub-question). The where-lost view reads them: a nugget with a passage rated at "
        "or above tau in a run's top k was retrieved."
    )
    format_name = "nugget-ratings"
    source_help = "the ratings JSONL file"
