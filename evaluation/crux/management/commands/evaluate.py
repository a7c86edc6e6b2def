"""manage.py evaluate --collection NAME [--judge J] [--tau 3] [--k 10|oracle] [--format json|csv]
[--per-topic] [--run RUN] [--qrels-source S] [--missing-as-zero] [--reports]
[--required-agreement].

The records go to stdout; warnings about a degenerate judge (nearly constant ratings, unparsable
outputs) and metrics on which every run ties go to stderr, one ``warning (...)`` line each."""

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crux_app.inputs import EvaluationInputError, resolve_collection
from crux_app.read_parameters import ReadParameters, add_k_or_oracle
from evaluation.crux.evaluate import EvaluationParams, evaluate
from evaluation.crux.judge_warnings import evaluation_warnings, judge_warnings
from evaluation.crux.leaderboard_columns import GROUP
from evaluation.crux.oracle import ORACLE_POLICY
from evaluation.crux.record_text import FORMATS, render_reports, render_runs
from evaluation.crux.required_agreement import required_grade_agreement
from evaluation.leaderboard.columns import column_values


class Command(BaseCommand):
    help = (
        "Evaluate a collection's runs with CRUX coverage, alpha-nDCG@k, density and nDCG@k / "
        "MAP / Recall@k / R-Prec; prints one record per run (undefined values: null / empty)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        # --judge, --tau, --run and --k (with 'oracle'): declared once (crux_app.read_parameters)
        ReadParameters.add_arguments(parser, ["judge", "tau", "run"])
        add_k_or_oracle(parser)
        parser.add_argument("--format", choices=FORMATS, default="json")
        parser.add_argument("--per-topic", action="store_true", help="add per-topic values")
        parser.add_argument(
            "--qrels-source", help="passage qrels source (default: the one with most rows)"
        )
        parser.add_argument(
            "--missing-as-zero",
            action="store_true",
            help="read unjudged ratings as 0 instead of leaving values undefined",
        )
        parser.add_argument(
            "--min-relevance", type=int, default=1, help="lowest qrels grade counted relevant"
        )
        parser.add_argument(
            "--tokenizer",
            help="density tokenizer: the configured one by default, or 'whitespace'",
        )
        parser.add_argument(
            "--reports",
            action="store_true",
            help="print the coverage of generated reports (per system and judge) instead",
        )
        parser.add_argument(
            "--required-agreement",
            action="store_true",
            help="print how the greedy required subset agrees with the imported grades (JSON)",
        )

    def handle(self, *args, **options) -> None:
        try:
            collection = resolve_collection(options["collection"])
            if options["required_agreement"]:
                result = required_grade_agreement(
                    collection,
                    options["judge"],
                    options["tau"],
                    options["qrels_source"],
                    options["missing_as_zero"],
                )
                self.stdout.write(json.dumps(result.as_record(), indent=2))
                return
            params = EvaluationParams(
                judge=options["judge"],
                tau=options["tau"],
                k=options["k"],
                qrels_source=options["qrels_source"],
                run=options["run"],
                missing_as_zero=options["missing_as_zero"],
                min_relevance=options["min_relevance"],
                tokenizer=options["tokenizer"],
            )
            evaluation = evaluate(collection, params)
        except EvaluationInputError as error:
            raise CommandError(str(error)) from None
        if options["reports"]:
            text = render_reports(evaluation, options["format"])
            warnings = judge_warnings(collection, evaluation.judge)
        else:
            runs = [run.name for run in evaluation.runs]
            # The other methods' leaderboard columns, as the leaderboard shows them.
            extra = column_values(collection, params.leaderboard(), runs, exclude=(GROUP.key,))
            text = render_runs(evaluation, options["format"], options["per_topic"], extra)
            warnings = evaluation_warnings(evaluation, extra)
        self.stdout.write(text.rstrip("\n"))
        # On stderr: the records on stdout stay machine-readable.
        for warning in warnings:
            self.stderr.write(f"warning ({warning.title}): {warning.message}")
        if not options["reports"] and evaluation.computed_oracle.any():
            n = int(evaluation.computed_oracle.sum())
            self.stderr.write(f"note (oracle, {n} of {len(evaluation.topic_names)} topics): "
                              f"{ORACLE_POLICY}")  # fmt: skip
