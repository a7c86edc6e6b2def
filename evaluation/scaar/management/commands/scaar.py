"""manage.py scaar --collection NAME [--system S] [--output ID] [--compute] --format json|csv.

Prints the stored analyses; ``--compute`` first analyses the missing ones in this process, after
printing what that will cost (``crux_app.jobs.estimate``), and ``--dry-run`` prints only that
cost. When nothing is stored for what was asked, stderr says so and names the command that
computes it.
"""

from __future__ import annotations

import shlex

from django.core.management.base import CommandError, CommandParser

from crux_app.compute_command import ComputeCommand
from crux_app.models import Collection
from evaluation.scaar.export import render_csv, render_json
from evaluation.scaar.job import KIND
from evaluation.scaar.models import ScaarAnalysis
from evaluation.scaar.page import collection_summaries
from evaluation.scaar.params import ScaarJobParams


class Command(ComputeCommand):
    job_kind = KIND
    job_what = "SCAAR job"
    help = (
        "Print the stored SCAAR analyses of a collection's outputs, one record per answer "
        "(words, probabilities, contributions, thresholds, triggers, PFQ and FLARE queries, "
        "retrieved passages, scores) and N_R / S_eff per system. --compute first analyses the "
        "outputs not analysed yet with the given settings, in this process."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True)
        parser.add_argument("--output", help="only the output with this external id")
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        self.add_compute_arguments(
            parser,
            "first analyse the missing outputs in this process, with the configured models",
            "print what --compute would cost (answers left, tokens, time); analyse nothing",
        )
        # --theta0, --alpha, --weighting, --k, --no-refine, --system, --batch-size: the job's
        # declared parameters.
        ScaarJobParams.add_arguments(parser)

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"--collection: no collection named {options['collection']!r}")
        analyses = ScaarAnalysis.objects.filter(collection=collection)
        if options["output"]:
            if not collection.outputs.filter(external_id=options["output"]).exists():
                raise CommandError(f"--output: no output {options['output']!r} in {collection}")
            analyses = analyses.filter(output__external_id=options["output"])
        if options["system"]:
            analyses = analyses.filter(output__system=options["system"])
        if options["dry_run"]:
            self._estimate(collection, *self._job(collection, options), dry_run=True)
            return
        if options["compute"]:
            self._compute(collection, options)
        analyses = analyses.select_related("output", "topic").order_by(
            "output__system", "output__external_id", "pk"
        )
        if not analyses.exists():
            self.stderr.write(self._nothing_stored(collection, options))
        if options["format"] == "csv":
            self.stdout.write(render_csv(analyses), ending="")
        else:
            self.stdout.write(render_json(analyses, collection_summaries(collection)))

    def _nothing_stored(self, collection: Collection, options: dict) -> str:
        asked, command = [], ["manage.py", "scaar", "--collection", collection.name]
        outputs = collection.outputs.all()
        for option in ("system", "output"):
            if options[option]:
                asked.append(f"{option} {options[option]!r}")
                command += [f"--{option}", options[option]]
        if options["system"]:
            outputs = outputs.filter(system=options["system"])
        scope = f" ({', '.join(asked)})" if asked else ""
        what = f"no stored SCAAR analyses for collection {collection.name!r}{scope}"
        if not outputs.exists():
            return (
                f"{what}: it has no generated outputs to analyse; generate answers first "
                "(a Generate answers job from the collection page)"
            )
        if options["compute"]:
            return f"{what}, even after computing: see the job's message above"
        return (
            f"{what}; run `{shlex.join([*command, '--compute'])}`, or start a SCAAR job from "
            "the collection page"
        )

    def _job(self, collection: Collection, options: dict) -> tuple[dict, object]:
        """The job's params and topic (one output's topic with ``--output``)."""
        try:
            params = ScaarJobParams.from_params(ScaarJobParams.from_options(options)).as_params()
        except ValueError as error:
            raise CommandError(str(error).replace("job parameter", "option")) from None
        topic = None
        if options["output"]:
            output = collection.outputs.get(external_id=options["output"])
            topic = output.topic
            params["system"] = output.system
        return params, topic

    def _estimate(self, collection: Collection, params: dict, topic, dry_run: bool) -> None:
        self.print_estimate(params, collection, topic, dry_run=dry_run)

    def _compute(self, collection: Collection, options: dict) -> None:
        from evaluation.scaar.tasks import run_scaar  # loads model code only when asked to

        params, topic = self._job(collection, options)
        self._estimate(collection, params, topic, dry_run=False)
        self.compute_job(params, collection, run_scaar, topic)
