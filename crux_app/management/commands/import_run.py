"""manage.py import_run --collection NAME --name TAG [--add-missing-passages] FILE (TREC run)."""

from ._import_base import ADD_MISSING_PASSAGES_HELP, ImportCommand


class Command(ImportCommand):
    help = (
        "Import a TREC run (qid Q0 pid rank score tag) into an existing collection; its topics "
        "must be there, and its passages too unless --add-missing-passages is given."
    )
    format_name = "run"

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--name", required=True, help="the run's name in the collection")
        parser.add_argument(
            "--add-missing-passages", action="store_true", help=ADD_MISSING_PASSAGES_HELP
        )
        parser.add_argument("file", help="the run file")

    def handle_import(self, **options) -> None:
        self.run_import(
            options["collection"],
            options["file"],
            run_name=options["name"],
            add_missing_passages=options["add_missing_passages"],
        )
