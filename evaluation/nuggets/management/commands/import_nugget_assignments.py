"""manage.py import_nugget_assignments --collection NAME --judge JUDGE --kind human|llm FILE."""

from crux_app.management.commands._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        'Import one judge\'s nugget assignments: nuggetizer assign output, one {"qid", '
        '"run_id", "nuggets": [{"text", "importance", "assignment"}]} object per line, '
        "assignment support, partial_support or not_support. Nuggets are matched to the "
        "collection's by topic and text; answers must be imported first."
    )
    format_name = "nugget-assignments"
    source_help = "the assignments JSONL file"
