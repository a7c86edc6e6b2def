"""manage.py import_qrels --collection NAME --judge JUDGE --kind human|llm FILE (TREC qrels)."""

from ._import_base import ImportCommand


class Command(ImportCommand):
    help = (
        "Import TREC qrels (qid 0 docid grade) as one judge's passage relevance labels, "
        "human (NIST's assessors) or LLM (UMBRELA) alike. Storage: one PassageQrel row per "
        "line with source = the judge's name, and the Judge row (kind; model id and prompt "
        "version for an LLM), created when new. The judge's name is thereby a qrels source "
        "that the leaderboard and evaluate can choose. Topics must be in the collection "
        "(import_topics). Re-importing replaces the judge's qrels of the file's topics."
    )
    format_name = "qrels"
    source_help = "the qrels file"
