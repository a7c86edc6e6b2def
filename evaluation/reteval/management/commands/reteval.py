"""``manage.py reteval``: the LLM-retEval table of a collection (Tables 1 and 2 of the paper).

Prints stored results; ``--compute`` first runs the job in this process for each ``--run``
(default: every run of the collection) with the configured generator and judge (only missing
answers and comparisons cost model time), and ``--campaign NAME`` creates a failure-category
campaign of the disagreeing questions. Each job first prints what it will cost
(``crux_app.jobs.estimate``); ``--dry-run`` prints only those costs. When nothing is stored for
what was asked, stderr says so and names the command that computes it.
"""

from __future__ import annotations

import csv
import json
import shlex

from django.core.management.base import CommandError, CommandParser

from crux_app.compute_command import ComputeCommand
from crux_app.csv_safety import safe_row
from crux_app.models import Collection, Run
from crux_app.read_parameters import JUDGE, RUN  # the declared read side
from evaluation.reteval.failures import create_failure_campaign
from evaluation.reteval.job import KIND, run_reteval_job
from evaluation.reteval.method.verdicts import summarise
from evaluation.reteval.params import DEFAULT_KS, RetEvalJobParams
from evaluation.reteval.table import (
    RetEvalInputError,
    RunSummary,
    build_table,
    row_dict,
    table_dict,
)

FORMATS = ("json", "csv", "text")
TEXT_COLUMNS = (
    ("run", "run"),
    ("k", "k"),
    ("questions", "n"),
    ("recall", "Recall@k"),
    ("precision", "Prec@k"),
    ("f1", "F1@k"),
    ("llm_reteval", "LLM-retEval@k"),
    ("answer_accuracy_lexical", "AnswerAcc"),
    ("recall_failures", "RecallFail"),
    ("reteval_failures", "retEvalFail"),
    ("spearman_all", "rho ALL"),
    ("spearman_refined", "rho Refined"),
)

# Every CSV column, so that a table without rows still prints its header.
CSV_COLUMNS = list(row_dict(RunSummary("", 0, summarise(1, []))))


# The job's declared parameters offered with --compute (--k, the ks, reads and computes).
COMPUTE_OPTIONS = [
    p.name for p in RetEvalJobParams.declared() if p.name not in ("run_id", "ks") and p.option
]


class Command(ComputeCommand):
    job_kind = KIND
    job_what = "LLM-retEval job"
    help = "Print the LLM-retEval table (Recall/Precision/F1@k, LLM-retEval@k, Spearman)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True)
        parser.add_argument(
            "--run",
            action="append",
            type=RUN.option_value_of(str),
            help="run name (repeatable; default all)",
        )
        ks = RetEvalJobParams.declared()["ks"]  # the job's bounds; no default: the stored ones
        parser.add_argument("--k", type=ks.option_value_of(int), nargs="+", help="cutoffs")
        parser.add_argument(
            "--judge",
            type=JUDGE.option_value_of(str),
            help="judge model id (default: most results)",
        )
        parser.add_argument("--format", choices=FORMATS, default="text")
        self.add_compute_arguments(
            parser,
            "first run the job for each --run (default: every run) in this process, "
            "with the configured models",
            "print what --compute would cost (questions left, tokens, time); compute nothing",
        )
        # With --compute: the job's other declared parameters (--max-questions: the first N).
        RetEvalJobParams.add_arguments(parser, COMPUTE_OPTIONS)
        parser.add_argument("--campaign", help="create a failure-category campaign of this name")

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"collection {options['collection']!r} does not exist")
        if options["dry_run"]:
            for run in self._runs(collection, options):
                self._estimate(collection, run, options, dry_run=True)
            return
        if options["compute"]:
            self._compute(collection, options)
        try:
            table = build_table(collection, options["run"], options["k"], options["judge"])
        except RetEvalInputError as error:
            raise CommandError(f"--{error.field}: {error}") from error
        if not any(row.summary.n_questions for row in table.rows):
            self.stderr.write(self._nothing_stored(collection, options))
        if options["campaign"]:
            self._campaign(collection, table.judge, options)
        fmt = options["format"]
        if fmt == "json":
            self.stdout.write(json.dumps(table_dict(table), indent=2))
        elif fmt == "csv":
            rows = [row_dict(r) for r in table.rows]
            writer = csv.DictWriter(self.stdout, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(safe_row(row) for row in rows)
        else:
            self._text(table)

    def _nothing_stored(self, collection: Collection, options) -> str:
        asked, command = [], ["manage.py", "reteval", "--collection", collection.name]
        if options["run"]:
            asked.append(f"run {', '.join(repr(r) for r in dict.fromkeys(options['run']))}")
            for name in dict.fromkeys(options["run"]):
                command += ["--run", name]
        if options["k"]:
            asked.append(f"k {' '.join(str(k) for k in options['k'])}")
            command += ["--k", *(str(k) for k in options["k"])]
        if options["judge"]:
            asked.append(f"judge {options['judge']!r}")
        scope = f" ({', '.join(asked)})" if asked else ""
        what = f"no stored LLM-retEval results for collection {collection.name!r}{scope}"
        if options["compute"]:
            return f"{what}, even after computing: see the jobs' messages above"
        return (
            f"{what}; run `{shlex.join([*command, '--compute'])}`, or start an LLM-retEval job "
            "from the collection page"
        )

    def _compute(self, collection: Collection, options) -> None:
        from evaluation.reteval.tasks import reteval_models  # loads model code only when asked to

        for run in self._runs(collection, options):
            params = self._estimate(collection, run, options, dry_run=False)
            self.compute_job(
                params,
                collection,
                lambda job: run_reteval_job(job, reteval_models()),
                what=f"LLM-retEval of run {run.name!r}",
            )

    def _runs(self, collection: Collection, options) -> list[Run]:
        """The runs ``--compute`` runs a job for: each ``--run``, else every run."""
        names = options["run"] or list(
            Run.objects.filter(collection=collection)
            .order_by("name")
            .values_list("name", flat=True)
        )
        if not names:
            raise CommandError(f"--compute: collection {collection.name!r} has no runs")
        runs = []
        for name in dict.fromkeys(names):
            run = Run.objects.filter(collection=collection, name=name).first()
            if run is None:
                raise CommandError(f"--run: run {name!r} does not exist in {collection.name!r}")
            runs.append(run)
        return runs

    def _estimate(self, collection: Collection, run: Run, options, dry_run: bool) -> dict:
        """Print the cost of the run's job; its params."""
        try:
            declared = RetEvalJobParams.from_params(
                {
                    **RetEvalJobParams.from_options(options, COMPUTE_OPTIONS),
                    "run_id": run.pk,
                    "ks": list(options["k"] or DEFAULT_KS),
                }
            )
        except ValueError as error:
            raise CommandError(str(error).replace("job parameter", "option")) from None
        params = declared.as_params(run)
        what = f"LLM-retEval job of run {run.name!r}"
        self.print_estimate(params, collection, dry_run=dry_run, what=what)
        return params

    def _campaign(self, collection: Collection, judge: str | None, options) -> None:
        if judge is None or not options["run"] or not options["k"] or len(options["k"]) != 1:
            raise CommandError("--campaign needs stored results, one --run and one --k")
        run = Run.objects.get(collection=collection, name=options["run"][0])
        try:
            campaign = create_failure_campaign(
                collection, judge, run, options["k"][0], None, name=options["campaign"]
            )
        except ValueError as error:
            raise CommandError(f"--campaign: {error}") from error
        self.stderr.write(f"campaign {campaign.name!r}: {campaign.selection['items']} items")

    def _text(self, table) -> None:
        self.stdout.write(f"collection {table.collection.name} · judge {table.judge}")
        header = [label for _, label in TEXT_COLUMNS]
        lines = [header]
        for row in table.rows:
            values = row_dict(row)
            lines.append([_cell(values[key]) for key, _ in TEXT_COLUMNS])
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        for line in lines:
            self.stdout.write(
                "  ".join(cell.rjust(w) for cell, w in zip(line, widths, strict=True))
            )


def _cell(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
