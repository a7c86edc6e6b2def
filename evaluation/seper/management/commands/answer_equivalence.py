"""manage.py answer_equivalence FILE.json [--format json|csv] [--threshold 0.5]."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.backends.registry import get_nli
from evaluation.seper.evouna import (
    DEFAULT_THRESHOLD,
    FORMATS,
    EvounaFormatError,
    evaluate_file,
    read_evouna,
    render_report,
)

# Pairs per NLI call, so the progress bar on stderr moves on large files.
NLI_CHUNK = 256


def _threshold(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise CommandError(f"--threshold must be a number in [0, 1], got {value!r}") from None
    if not 0 <= number <= 1:
        raise CommandError(f"--threshold must be a number in [0, 1], got {value!r}")
    return number


class Command(BaseCommand):
    help = (
        "Score human-labelled answer-equivalence data in the EVOUNA layout with the SePer "
        "entailment kernel (NLI_MODEL), lexical match and exact match; print per system the "
        "number of usable pairs n and each scorer's F1 / accuracy against the human labels."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="EVOUNA-layout JSON file")
        parser.add_argument("--format", choices=FORMATS, default="json")
        parser.add_argument(
            "--threshold",
            type=_threshold,
            default=DEFAULT_THRESHOLD,
            help="equivalent when max_j k(answer, gold_j) >= this (default 0.5)",
        )
        parser.add_argument(
            "--progress", action="store_true", help="show an NLI progress bar on stderr"
        )

    def handle(self, *args, **options) -> None:
        try:
            data = read_evouna(options["file"])
        except EvounaFormatError as error:
            raise CommandError(str(error)) from None
        nli = get_nli()
        scores = evaluate_file(
            data,
            nli,
            threshold=options["threshold"],
            chunk_size=NLI_CHUNK,
            progress=options["progress"],
        )
        meta = {"nli_model": nli.model_id, "threshold": options["threshold"]}
        self.stdout.write(render_report(data, scores, options["format"], meta).rstrip("\n"))
