"""Queue one small job of each method on a demo collection, so its pages fill in the demo.

Each method declares its small demo job with its job kind (``JobKind.demo``, kept small so
the demo worker, one CPU process, finishes them in minutes), on the demo QA collection unless
the kind names another (``JobKind.demo_collection``). Idempotent: a kind that already has a job
on its collection is not queued again; a kind is queued after the kinds it needs
(``JobKind.needs``), the others in their declaration order.
"""

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from crux_app.jobs.catalog import demo_kinds
from crux_app.jobs.service import start_job
from crux_app.management.commands.load_demo import DEMO_QA_COLLECTION
from crux_app.models import Collection, Job, Run


class Command(BaseCommand):
    help = (
        "Queue one small job of each method that registered a demo job on its demo collection "
        "(skipping kinds that already ran there); a worker must be running."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--collection", default=DEMO_QA_COLLECTION, help="the demo QA collection"
        )

    def handle(self, *args, **options) -> None:
        with transaction.atomic():
            for kind in demo_kinds():
                collection = self._collection(kind.demo_collection or options["collection"])
                if Job.objects.filter(collection=collection, kind=kind.name).exists():
                    self.stdout.write(f"{kind.name}: a job already exists on {collection.name!r}")
                    continue
                run = Run.objects.filter(collection=collection).order_by("name").first()
                if run is None:
                    raise CommandError(f"collection {collection.name!r} has no run")
                first = collection.topics.order_by("external_id").first()
                params, topic = kind.demo(run, first)
                job = start_job(kind.name, params, collection=collection, topic=topic)
                self.stdout.write(f"{kind.name}: queued job #{job.pk} on {collection.name!r}")

    @staticmethod
    def _collection(name: str) -> Collection:
        collection = Collection.objects.filter(name=name).first()
        if collection is None:
            raise CommandError(f"collection {name!r} does not exist; run load_demo first")
        return collection
