"""manage.py seper_correlations --collection NAME [--k 5] [--judge J] [--tau 3]
[--format json|text] [--compute].

Reads stored SePer rows; ``--compute`` first runs the SePer job in this process for each run of
the collection at ``--k`` (only missing rows cost model time), each after printing what it will
cost (``crux_app.jobs.estimate``); ``--dry-run`` prints only those costs. When nothing is stored
for what was asked, stderr says so and names the command that computes it."""

import json
import shlex

from django.core.management.base import CommandError, CommandParser

from crux_app.compute_command import ComputeCommand
from crux_app.inputs import EvaluationInputError, resolve_collection
from crux_app.models import Collection
from crux_app.read_parameters import ReadParameters
from evaluation.leaderboard.columns import LeaderboardParams
from evaluation.seper.correlations import SeperCorrelations, run_deltas, seper_correlations
from evaluation.seper.job import KIND
from evaluation.seper.params import SeperJobParams


class Command(ComputeCommand):
    job_kind = KIND
    job_what = "SePer job"
    help = (
        "Pearson correlation (p-value, n) of stored Delta-SePer with passage utility labels "
        "(gold 1 / distractor 0), CRUX coverage@k and Recall@k, and each run's mean "
        "Delta-SePer of its top-k context (the leaderboard column)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        # --k (the runs' context depth, read and computed), --n-samples, --temperature,
        # --seed, --batch-size: the job's declared parameters (--compute runs with them).
        SeperJobParams.add_arguments(parser)
        # --judge (of CRUX coverage) and --tau: declared once (crux_app.read_parameters)
        ReadParameters.add_arguments(parser, ["judge", "tau"])
        parser.add_argument("--format", choices=("json", "text"), default="json")
        self.add_compute_arguments(
            parser,
            "first run the SePer job for each run at --k in this process, with the configured "
            "models",
            "print what --compute would cost (questions left, tokens, time); score nothing",
        )

    def handle(self, *args, **options) -> None:
        try:
            collection = resolve_collection(options["collection"])
            params = LeaderboardParams(judge=options["judge"], tau=options["tau"], k=options["k"])
        except EvaluationInputError as error:
            raise CommandError(str(error)) from None
        if options["dry_run"]:
            for run in self._runs(collection):
                self._estimate(collection, run, options, dry_run=True)
            return
        if options["compute"]:
            self._compute(collection, options)
        try:
            result = seper_correlations(collection, params)
        except EvaluationInputError as error:
            raise CommandError(str(error)) from None
        runs = collection.runs.order_by("name").values_list("name", flat=True)
        means = run_deltas(collection, options["k"], runs)
        missing = self._nothing_stored(collection, result, means, options)
        if missing:
            self.stderr.write(missing)
        if options["format"] == "json":
            runs_out = [{"run": n, "delta_seper_s": v} for n, v in means.items()]
            payload = {**result.as_dict(), "runs": runs_out}
            self.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False))
            return
        for note in result.notes:
            self.stdout.write(f"note: {note}")
        for row in result.rows:
            c = row.correlation
            if c.r is None:
                figure = f"undefined ({c.undefined})"
            else:
                figure = f"r = {c.r:.3f}, p = {c.p_value:.3g}"
            self.stdout.write(f"{row.description} [{row.delta}]: {figure}, n = {c.n}")
        for name, value in means.items():
            shown = "—" if value is None else f"{value:.3f}"
            self.stdout.write(f"run {name}: mean ΔSePer_S of top-{options['k']} = {shown}")

    def _nothing_stored(
        self, collection: Collection, result: SeperCorrelations, means: dict, options
    ) -> str | None:
        """What is missing, and how to compute it; None when something was stored."""
        if result.setting is None:
            what = f"no stored SePer scores for collection {collection.name!r}"
        elif means and all(value is None for value in means.values()):
            what = (
                f"no stored Delta-SePer of the runs' top-{options['k']} contexts in collection "
                f"{collection.name!r}"
            )
        else:
            return None
        if options["compute"]:
            return f"{what}, even after computing: see the jobs' messages above"
        command = ["manage.py", "seper_correlations", "--collection", collection.name]
        command += ["--k", str(options["k"]), "--compute"]
        return f"{what}; run `{shlex.join(command)}`, or start a SePer job from the collection page"

    def _compute(self, collection: Collection, options) -> None:
        from evaluation.seper.tasks import run_seper  # loads model code only when asked to

        for run in self._runs(collection):
            params = self._estimate(collection, run, options, dry_run=False)
            label = f"run {run.name!r}" if run else "the baseline and gold passages"
            self.compute_job(params, collection, run_seper, what=f"SePer job of {label}")

    def _runs(self, collection: Collection) -> list:
        """The runs the jobs score (None: the baseline and gold passages of a run-less one)."""
        return list(collection.runs.order_by("name")) or [None]

    def _estimate(self, collection: Collection, run, options, dry_run: bool) -> dict:
        """Print the cost of the run's job; its params."""
        try:
            declared = SeperJobParams.from_params(
                {**SeperJobParams.from_options(options), "run_id": run.pk if run else None}
            )
        except ValueError as error:
            raise CommandError(str(error).replace("job parameter", "option")) from None
        params = declared.as_params(run)
        what = f"SePer job of run {run.name!r}" if run else "SePer job of the gold passages"
        self.print_estimate(params, collection, dry_run=dry_run, what=what)
        return params
