"""manage.py agreement --collection NAME [--campaign C] [--judge J ...] [--tau 3]
[--resamples 200] [--seed 0] --format json|csv|html --out PATH."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crux_app.command_output import write_report
from crux_app.inputs import EvaluationInputError, resolve_collection
from crux_app.read_parameters import JUDGE, ReadParameters
from evaluation.agreement.html_report import render_html
from evaluation.agreement.method.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Bootstrap
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.agreement.report_export import to_csv, to_json

RENDERERS = {"json": to_json, "csv": to_csv, "html": render_html}


class Command(BaseCommand):
    help = (
        "Agreement report of a collection: inter-annotator figures, human vs LLM judge, judges "
        "side by side and report-level coverage correlation, with bootstrap intervals."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument("--campaign", help="only the judgments of this annotation campaign")
        parser.add_argument(  # the declared judge (crux_app.read_parameters), repeatable
            JUDGE.option,
            action="append",
            default=[],
            type=JUDGE.option_value_of(str),
            help="a judge to include (repeatable; naming LLM judges or humans restricts that "
            "side, the other side keeps every judge; none: every judge)",
        )
        ReadParameters.add_arguments(parser, ["tau"])  # --tau, declared once
        parser.add_argument(
            "--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples (0: off)"
        )
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed")
        parser.add_argument("--format", choices=sorted(RENDERERS), default="json")
        parser.add_argument("--out", help="write to this file (default: standard output)")

    def handle(self, *args, **options) -> None:
        try:
            collection = resolve_collection(options["collection"])
            boot = Bootstrap(n_resamples=options["resamples"], seed=options["seed"])
            report = build_report(
                collection,
                AgreementOptions(
                    judges=tuple(options["judge"]),
                    campaign=options["campaign"],
                    tau=options["tau"],
                    bootstrap=boot,
                ),
            )
        except (EvaluationInputError, ValueError) as error:
            raise CommandError(str(error)) from None
        write_report(self, RENDERERS[options["format"]](report), options["out"])
        if report.campaign.note:
            self.stderr.write(f"note: {report.campaign.note}")
        for warning in report.warnings:
            self.stderr.write(f"warning ({warning.title}): {warning.message}")
