"""``manage.py dense --collection NAME [--run RUN] [--k 5] [--format json|jsonl] [--compute]``:
print one record per question from the stored DENSE results of a collection; ``--compute``
first computes the missing ones in this process, after printing what that will cost
(``crux_app.jobs.estimate``), and ``--dry-run`` prints only that cost. When nothing is stored
for what was asked, stderr says so and names the command that computes it."""

from __future__ import annotations

import json
import shlex

from django.core.management.base import CommandError, CommandParser
from tqdm import tqdm

from crux_app.compute_command import ComputeCommand
from crux_app.models import Collection, Run
from crux_app.read_parameters import RUN, TOPIC  # the declared read side
from evaluation.dense.collection_summary import collection_summary
from evaluation.dense.job import KIND
from evaluation.dense.params import DenseJobParams
from evaluation.dense.stored_results import latest_results, question_record


class Command(ComputeCommand):
    job_kind = KIND
    job_what = "DENSE job"
    help = "DENSE uncertainty of each question of a collection under a run's top-k"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True)
        parser.add_argument(
            "--run",
            type=RUN.option_value_of(str),
            help="run name (default: the collection's only run)",
        )
        # --k, --threshold, --no-refine, --no-chunking, ...: the job's declared parameters.
        DenseJobParams.add_arguments(parser)
        parser.add_argument("--format", choices=["json", "jsonl"], default="json")
        parser.add_argument(
            "--topic", type=TOPIC.option_value_of(str), help="one topic's external id"
        )
        reading = parser.add_mutually_exclusive_group()
        self.add_compute_arguments(
            parser,
            "first compute the missing results in this process, with the configured models",
            "print what --compute would cost (questions left, tokens, time); compute nothing",
            compute_group=reading,
        )
        reading.add_argument(
            "--stored", action="store_true", help="deprecated no-op: stored results are the default"
        )
        parser.add_argument(
            "--summary", action="store_true", help="print the per-run figures instead"
        )

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"--collection: no collection named {options['collection']!r}")
        run = self._run(collection, options["run"])
        topic = None
        if options["topic"]:
            topic = collection.topics.filter(external_id=options["topic"]).first()
            if topic is None:
                raise CommandError(f"--topic: no topic {options['topic']!r} in {collection.name!r}")
        if options["dry_run"]:
            self._estimate(collection, run, topic, options, dry_run=True)
            return
        if options["compute"]:
            self._compute(collection, run, topic, options)
        if options["summary"]:
            records = [s.as_dict() for s in collection_summary(collection, run)]
        else:
            rows = [r for r in latest_results(collection, run, options["k"])]
            if topic is not None:
                rows = [r for r in rows if r.topic_id == topic.pk]
            records = [question_record(r) for r in rows]
        if not records:
            self.stderr.write(self._nothing_stored(collection, run, topic, options))
        self._print(records, options)

    def _run(self, collection: Collection, name: str | None) -> Run:
        runs = list(Run.objects.filter(collection=collection).order_by("name"))
        names = ", ".join(repr(r.name) for r in runs) or "none"
        if name is None:
            if len(runs) != 1:
                raise CommandError(f"--run is needed; runs in {collection.name!r}: {names}")
            return runs[0]
        for run in runs:
            if run.name == name:
                return run
        raise CommandError(f"--run: no run {name!r} in {collection.name!r}; runs there: {names}")

    def _params(self, run: Run, options) -> dict:
        config = DenseJobParams(run_id=run.pk, **DenseJobParams.from_options(options))
        try:
            config.check()
        except ValueError as error:
            raise CommandError(str(error).replace("job parameter", "option")) from None
        return config.as_params(run)

    def _estimate(self, collection, run, topic, options, dry_run: bool) -> None:
        self.print_estimate(self._params(run, options), collection, topic, dry_run=dry_run)

    def _compute(self, collection, run, topic, options) -> None:
        from evaluation.dense.tasks import run_dense  # model code only when computing

        self._estimate(collection, run, topic, options, dry_run=False)
        bar = tqdm(total=collection.topics.count() if topic is None else 1, desc="DENSE",
                   file=self.stderr, disable=None)  # fmt: skip

        def run_job(job):  # noqa: ANN001, ANN202
            job = run_dense(job)
            bar.update(job.done)
            bar.close()
            return job

        self.compute_job(self._params(run, options), collection, run_job, topic)

    def _nothing_stored(self, collection, run, topic, options) -> str:
        asked = [f"run {run.name!r}"]
        command = ["manage.py", "dense", "--collection", collection.name, "--run", run.name]
        if not options["summary"]:
            asked.append(f"k {options['k']}")
            command += ["--k", str(options["k"])]
        if topic is not None:
            asked.append(f"topic {topic.external_id!r}")
            command += ["--topic", topic.external_id]
        what = f"no stored DENSE results for collection {collection.name!r} ({', '.join(asked)})"
        if options["compute"]:
            return f"{what}, even after computing: see the job's message above"
        return (
            f"{what}; run `{shlex.join([*command, '--compute'])}`, or start a DENSE job from "
            "the collection page"
        )

    def _print(self, records: list[dict], options) -> None:
        if options["format"] == "jsonl":
            for record in records:
                self.stdout.write(json.dumps(record, ensure_ascii=False))
        else:
            self.stdout.write(json.dumps(records, ensure_ascii=False, indent=1))
