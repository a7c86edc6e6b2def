"""manage.py nuggets --collection NAME --judge JUDGE [--format table|json]: the nugget scores
per run and topic from the judge's stored assignments (the leaderboard's column group).

``--compute`` first runs the nugget judging job (``--task create|assign|support`` and the job's
other declared parameters) in this process with the configured judge, skipping what that judge
has stored; it prints the job's cost first (``crux_app.jobs.estimate``), and ``--dry-run``
prints only that cost. After an ``assign`` job the scores are that judge's unless ``--judge``
names another; after ``create`` or ``support`` there is nothing to score yet and the command
stops at the job's summary."""

import json

from django.core.management.base import BaseCommand, CommandError

from crux_app.command_output import write_estimate
from crux_app.jobs.estimate import job_estimate
from crux_app.models import Collection, Job, Judge
from evaluation.nuggets.job import KIND, judge_version, llm_judge, run_nugget_job
from evaluation.nuggets.method.scores import SCORE_NAMES
from evaluation.nuggets.params import NuggetJobParams
from evaluation.nuggets.run_scores import assignment_judges, run_scores, scores_json


class Command(BaseCommand):
    help = (
        "Nugget scores (strict_vital, strict_all, vital, all as the TREC RAG nuggetizer "
        "defines them) per run and topic, and their means over topics; --compute first runs "
        "the nugget judging job."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument("--judge", help="whose assignments (default: the judge with the most)")
        parser.add_argument("--format", choices=("table", "json"), default="table")
        parser.add_argument(
            "--compute",
            action="store_true",
            help="first run the nugget judging job in this process with the configured judge",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print what --compute would cost (items left, tokens, time); compute nothing",
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
            judge = known[0]
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
        try:
            estimate = job_estimate(KIND, params, collection)
        except ValueError as error:
            raise CommandError(str(error)) from None
        write_estimate(self, f"nugget judging job ({params['task']})", estimate, dry_run)
        return params

    def _compute(self, collection: Collection, config: NuggetJobParams, params: dict) -> Judge:
        """Run the job here; the LLM judge it stored its labels as."""
        from evaluation.nuggets.tasks import nugget_models  # model code only when asked to

        models = nugget_models()
        job = Job.objects.create(kind=KIND, params=params, collection=collection)
        self.stderr.write(f"job #{job.pk}: nugget judging ({config.task})…")
        job = run_nugget_job(job, models)
        self.stderr.write(f"job #{job.pk} {job.state}: {job.message}")
        if job.state != Job.State.SUCCEEDED:
            first = job.errors[0]["message"] if job.errors else ""
            raise CommandError(f"job #{job.pk} {job.state}: {job.message}; error: {first}")
        return llm_judge(models.judge_id, judge_version(config))
