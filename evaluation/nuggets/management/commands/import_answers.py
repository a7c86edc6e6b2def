"""manage.py import_answers --collection NAME FILE (TREC RAG 2024 answers)."""

from crux_app.management.commands._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        'Import TREC RAG answers: one {"run_id", "topic_id", "topic", "references", '
        '"response_length", "answer": [{"text", "citations"}]} object per line. Each run_id '
        "becomes a run; each answer is stored sentence by sentence with its citations (indexes "
        "into the references). Topics and reference passages are created when missing."
    )
    format_name = "answers"
    source_help = "the answers JSONL file"
