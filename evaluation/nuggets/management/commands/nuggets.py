"""manage.py nuggets --collection NAME --judge JUDGE [--format table|json]: the nugget scores
per run and topic from the judge's stored assignments (the leaderboard's column group).

``--compute`` first runs the nugget judging job (``--task create|assign|support`` and the job's
other declared parameters) in this process with the configured judge, skipping what that judge
has stored; it prints the job's cost first (``crux_app.jobs.estimate``), and ``--dry-run``
prints only that cost. After an ``assign`` job the scores are that judge's unless ``--judge``
names another; after ``create`` or ``support`` there is nothing to score yet and the command
stops at the job's summary."""

import json

from django.core.management.base import CommandError

from crux_app.compute_command import ComputeCommand
from crux_app.models import Collection, Judge
from crux_app.read_parameters import JUDGE
from evaluation.nuggets.job import KIND, judge_version, llm_judge, run_nugget_job
from evaluation.nuggets.judge_warnings import ASSIGNMENTS, default_of
from evaluation.nuggets.method.scores import SCORE_NAMES
from evaluation.nuggets.params import NuggetJobParams
from evaluation.nuggets.run_scores import assignment_judges, run_scores, scores_json


class Command(ComputeCommand):
    job_kind = KIND
    job_what = "nugget judging job"
    help = (
        "Nugget scores (strict_vital, strict_all, vital, all as the TREC RAG nuggetizer "
        "defines them) per run and topic, and their means over topics; --compute first runs "
        "the nugget judging job."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument(  # the declared judge (crux_app.read_parameters)
            JUDGE.option, type=JUDGE.option_value_of(str), help="whose assignments; " + JUDGE.help
        )
        parser.add_argument("--format", choices=("table", "json"), default="table")
        self.add_compute_arguments(
            parser,
            "first run the nugget judging job in this process with the configured judge",
            "print what --compute would cost (items left, tokens, time); compute nothing",
        )
        NuggetJobParams.add_arguments(parser)

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"no collection '{options['collection']}'")
        if options["dry_run"] or options["compute"]:
            try:
                config = NuggetJobParams.from_params(NuggetJobParams.from_options(options))
            except ValueError as error:
                raise CommandError(str(error)) from None
            params = self._estimate(collection, options, options["dry_run"])
            if options["dry_run"]:
                return
            judge = self._compute(collection, config, params)
            if config.task != "assign":
                return
            options["judge"] = options["judge"] or judge.name
        if options["judge"]:
            judge = Judge.objects.filter(name=options["judge"]).first()
            if judge is None:
                raise CommandError(f"no judge '{options['judge']}'")
        else:
            known = assignment_judges(collection)
            if not known:
                raise CommandError(
                    f"collection '{collection.name}' has no nugget assignments; "
                    "import_nugget_assignments first, or run with --compute --task assign"
                )
            judge = default_of(collection, known, ASSIGNMENTS)
        scores = run_scores(collection, judge)
        if options["format"] == "json":
            self.stdout.write(json.dumps(scores_json(scores), indent=2))
            return
        self.stdout.write(f"judge {judge.name}; means over each run's topics")
        self.stdout.write("run".ljust(24) + "".join(n.rjust(14) for n in SCORE_NAMES) + "  topics")
        for r in scores:
            values = "".join(f"{getattr(r.scores, n):14.4f}" for n in SCORE_NAMES)
            self.stdout.write(f"{r.run[:24]:<24}{values}  {len(r.topics)}")

    def _estimate(self, collection: Collection, options, dry_run: bool) -> dict:
        """Print the job's cost; its params."""
        params = NuggetJobParams.from_options(options)
        what = f"nugget judging job ({params['task']})"
        self.print_estimate(params, collection, dry_run=dry_run, what=what)
        return params

    def _compute(self, collection: Collection, config: NuggetJobParams, params: dict) -> Judge:
        """Run the job here; the LLM judge it stored its labels as."""
        from evaluation.nuggets.tasks import nugget_models  # model code only when asked to

        models = nugget_models()
        what = f"nugget judging ({config.task})"
        self.compute_job(params, collection, lambda job: run_nugget_job(job, models), what=what)
        return llm_judge(models.judge_id, judge_version(config))
