"""manage.py judge_report --collection NAME --judges A B --metric ndcg|KEY --k K
[--resamples 2000] [--seed 0] --format json|html [--out PATH] (KEY: a leaderboard column a
method offers to the judge report, ``evaluation.judge_report.metrics``)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crux_app.command_output import write_report
from crux_app.inputs import EvaluationInputError, resolve_collection
from crux_app.read_parameters import ReadParameters
from evaluation.judge_report.export import to_json
from evaluation.judge_report.html_report import render_html
from evaluation.judge_report.method.ranking_agreement import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Bootstrap,
)
from evaluation.judge_report.metrics import NDCG, metric_keys
from evaluation.judge_report.report import JudgeReportParams, build_report

RENDERERS = {"json": to_json, "html": render_html}
MAX_RESAMPLES = 100_000


class Command(BaseCommand):
    help = (
        "Judge vs judge (or people): Kendall tau and tau-AP between the run rankings two judges "
        "induce, with bootstrap intervals over topics, per-topic tau, the run pairs they order "
        "differently, and prediction-powered estimates of every run's score."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument(
            "--judges", nargs=2, required=True, metavar=("A", "B"), help="two judge names"
        )
        parser.add_argument("--metric", choices=metric_keys(), default=NDCG)
        ReadParameters.add_arguments(parser, ["k"])  # --k, declared once
        parser.add_argument(
            "--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples (0: off)"
        )
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed")
        parser.add_argument("--format", choices=sorted(RENDERERS), default="json")
        parser.add_argument("--out", help="write to this file (default: standard output)")

    def handle(self, *args, **options) -> None:
        if not 0 <= options["resamples"] <= MAX_RESAMPLES:
            raise CommandError(f"--resamples must lie in 0..{MAX_RESAMPLES}")
        try:
            collection = resolve_collection(options["collection"])
            params = JudgeReportParams(
                judge_a=options["judges"][0],
                judge_b=options["judges"][1],
                metric=options["metric"],
                k=options["k"],
                bootstrap=Bootstrap(resamples=options["resamples"], seed=options["seed"]),
            )
            report = build_report(collection, params)
        except (EvaluationInputError, ValueError) as error:
            raise CommandError(str(error)) from None
        write_report(self, RENDERERS[options["format"]](report), options["out"])
        for note in report.notes:
            self.stderr.write(f"note: {note}")
        if report.sampling and report.sampling.problems:
            for problem in report.sampling.problems:
                self.stderr.write(f"warning (PPI sample): {problem}")
