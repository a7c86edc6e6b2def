"""Queue one small job of each method on the demo QA collection, so its pages fill in the demo.

Idempotent: a kind that already has a job on the collection is not queued again. The order
matters on a single worker: LLM-retEval first (its RAG and semi-gold answers are then among
the answers SCAAR analyses), SCAAR last.
"""

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from crux_app.jobs.service import start_job
from crux_app.management.commands.load_demo import DEMO_QA_COLLECTION
from crux_app.models import Collection, Job, Run, Topic
from dense.job import DenseJobParams
from evaluation.seper_job import SeperJobParams
from reteval.job import RetEvalJobParams
from scaar.job import ScaarJobParams

# Small on purpose: the demo worker is one CPU process and these finish in about five minutes
# (SePer, the slowest on CPU, scores one question).
QUESTIONS = 3
K = 3


def demo_jobs(run: Run, first: Topic) -> list[tuple[str, dict, Topic | None]]:
    """(kind, params, topic or None for the whole collection) of each job, in queue order."""
    reteval = RetEvalJobParams(run_id=run.pk, ks=(1, K), max_questions=QUESTIONS)
    seper = SeperJobParams(run_id=run.pk, k=K, n_samples=5, batch_size=1)
    return [
        ("reteval", reteval.as_params(run), None),
        ("dense", DenseJobParams(run_id=run.pk, k=K).as_params(run), None),
        ("seper", seper.as_params(run), first),
        ("scaar", ScaarJobParams().as_params(), None),
    ]


class Command(BaseCommand):
    help = (
        "Queue one small LLM-retEval, DENSE, SePer and SCAAR job on the demo QA collection "
        "(skipping kinds that already ran there); a worker must be running to do them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", default=DEMO_QA_COLLECTION)

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(
                f"collection {options['collection']!r} does not exist; run load_demo first"
            )
        run = Run.objects.filter(collection=collection).order_by("name").first()
        if run is None:
            raise CommandError(f"collection {collection.name!r} has no run")
        first = Topic.objects.filter(collection=collection).order_by("external_id").first()
        done = set(Job.objects.filter(collection=collection).values_list("kind", flat=True))
        with transaction.atomic():
            for kind, params, topic in demo_jobs(run, first):
                if kind in done:
                    self.stdout.write(f"{kind}: a job already exists on {collection.name!r}")
                    continue
                job = start_job(kind, params, collection=collection, topic=topic)
                self.stdout.write(f"{kind}: queued job #{job.pk}")
