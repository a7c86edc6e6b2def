"""``manage.py dense --collection NAME [--run RUN] [--k 5] [--format json|jsonl]``: compute the
missing DENSE results of a collection in this process (or only read the stored ones with
``--stored``) and print one record per question."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from crux_app.models import Collection, Job, Run
from evaluation.dense.collection_summary import collection_summary
from evaluation.dense.job import DEFAULT_K, KIND, DenseJobParams, run_dense_job
from evaluation.dense.method.graph import DEFAULT_THRESHOLD
from evaluation.dense.stored_results import latest_results, question_record


class Command(BaseCommand):
    help = "DENSE uncertainty of each question of a collection under a run's top-k"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True)
        parser.add_argument("--run", help="run name (default: the collection's only run)")
        parser.add_argument("--k", type=int, default=DEFAULT_K)
        parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
        parser.add_argument("--format", choices=["json", "jsonl"], default="json")
        parser.add_argument("--topic", help="one topic's external id")
        parser.add_argument("--no-refine", action="store_true", help="skip Algorithm 3")
        parser.add_argument("--no-chunking", action="store_true", help="skip Algorithm 2")
        parser.add_argument(
            "--stored", action="store_true", help="print stored results only, compute nothing"
        )
        parser.add_argument(
            "--summary", action="store_true", help="print the per-run figures instead"
        )

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"--collection: no collection named {options['collection']!r}")
        run = self._run(collection, options["run"])
        if options["k"] < 1:
            raise CommandError(f"--k must be >= 1, got {options['k']}")
        topic = None
        if options["topic"]:
            topic = collection.topics.filter(external_id=options["topic"]).first()
            if topic is None:
                raise CommandError(f"--topic: no topic {options['topic']!r} in {collection.name!r}")
        if not options["stored"]:
            self._compute(collection, run, topic, options)
        if options["summary"]:
            self._print([s.as_dict() for s in collection_summary(collection, run)], options)
            return
        rows = [r for r in latest_results(collection, run, options["k"])]
        if topic is not None:
            rows = [r for r in rows if r.topic_id == topic.pk]
        self._print([question_record(r) for r in rows], options)

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

    def _compute(self, collection, run, topic, options) -> None:
        from evaluation.dense.tasks import dense_models  # model code only when computing

        params = DenseJobParams(
            run_id=run.pk,
            k=options["k"],
            threshold=options["threshold"],
            refine=not options["no_refine"],
            chunking=not options["no_chunking"],
        )
        job = Job.objects.create(
            kind=KIND, params=params.as_params(run), collection=collection, topic=topic
        )
        bar = tqdm(total=collection.topics.count() if topic is None else 1, desc="DENSE",
                   file=self.stderr, disable=None)  # fmt: skip
        job = run_dense_job(job, dense_models())
        bar.update(job.done)
        bar.close()
        if job.state != Job.State.SUCCEEDED:
            errors = "; ".join(e.get("message", "") for e in job.errors[-3:])
            raise CommandError(f"DENSE job #{job.pk} {job.state}: {job.message} {errors}".strip())
        self.stderr.write(f"DENSE job #{job.pk}: {job.message}")

    def _print(self, records: list[dict], options) -> None:
        if options["format"] == "jsonl":
            for record in records:
                self.stdout.write(json.dumps(record, ensure_ascii=False))
        else:
            self.stdout.write(json.dumps(records, ensure_ascii=False, indent=1))
