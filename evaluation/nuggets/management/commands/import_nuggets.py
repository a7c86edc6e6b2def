"""manage.py import_nuggets --collection NAME FILE (nuggetizer create output)."""

from crux_app.management.commands._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        'Import nuggets: one {"qid", "query", "nuggets": [{"text", "importance"}]} object per '
        "line, importance vital or okay. A nugget is identified by (topic, position): "
        "re-importing an edited file keeps the labels of unchanged nuggets. Topics are created "
        "when missing (the query as their request)."
    )
    format_name = "nuggets"
    source_help = "the nuggets JSONL file"
