"""manage.py import_qrels --collection NAME --judge JUDGE --kind human|llm FILE (TREC qrels)."""

from crux_app.dataio.qrels_judge import JUDGE_KINDS

from ._import_base import ADD_MISSING_PASSAGES_HELP, ImportCommand


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

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--judge", required=True, help="the judge's name, also its qrels source's name"
        )
        parser.add_argument("--kind", required=True, choices=JUDGE_KINDS, help="judge kind")
        parser.add_argument("--model-id", default="", help="the LLM judge's model id")
        parser.add_argument(
            "--prompt-version",
            default="",
            help="the LLM judge's prompt version (model id and prompt version identify an "
            "LLM judge: give one when another LLM judge has the same model id)",
        )
        parser.add_argument(
            "--add-missing-passages", action="store_true", help=ADD_MISSING_PASSAGES_HELP
        )
        parser.add_argument("file", help="the qrels file")

    def handle_import(self, **options) -> None:
        self.run_import(
            options["collection"],
            options["file"],
            judge=options["judge"],
            judge_kind=options["kind"],
            model_id=options["model_id"],
            prompt_version=options["prompt_version"],
            add_missing_passages=options["add_missing_passages"],
        )
