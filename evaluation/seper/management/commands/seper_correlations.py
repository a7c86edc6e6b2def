"""manage.py seper_correlations --collection NAME [--k 5] [--judge J] [--tau 3]
[--format json|text]."""

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.crux.evaluate import EvaluationParams
from evaluation.crux.inputs import EvaluationInputError, resolve_collection
from evaluation.seper.correlations import run_deltas, seper_correlations
from evaluation.seper.job import DEFAULT_K


def _k(value: str) -> int:
    if value.isdigit() and int(value) >= 1:
        return int(value)
    raise CommandError(f"--k must be an integer >= 1, got {value!r}")


class Command(BaseCommand):
    help = (
        "Pearson correlation (p-value, n) of stored Delta-SePer with passage utility labels "
        "(gold 1 / distractor 0), CRUX coverage@k and Recall@k, and each run's mean "
        "Delta-SePer of its top-k context (the leaderboard column)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument("--k", type=_k, default=DEFAULT_K, help="the runs' context depth")
        parser.add_argument("--judge", help="judge of CRUX coverage (default: as evaluate)")
        parser.add_argument("--tau", type=float, default=3.0, help="answerability threshold")
        parser.add_argument("--format", choices=("json", "text"), default="json")

    def handle(self, *args, **options) -> None:
        try:
            collection = resolve_collection(options["collection"])
            params = EvaluationParams(judge=options["judge"], tau=options["tau"], k=options["k"])
            result = seper_correlations(collection, params)
        except EvaluationInputError as error:
            raise CommandError(str(error)) from None
        runs = collection.runs.order_by("name").values_list("name", flat=True)
        means = run_deltas(collection, options["k"], runs)
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
