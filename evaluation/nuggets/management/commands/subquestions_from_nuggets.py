"""manage.py subquestions_from_nuggets --collection NAME."""

from django.core.management.base import BaseCommand, CommandError

from crux_app.models import Collection
from evaluation.nuggets.conversion import subquestions_from_nuggets


class Command(BaseCommand):
    help = (
        "Make a CRUX sub-question of every nugget that has none, appended after the topic's "
        "existing sub-questions and linked to the nugget, so that CRUX judging rates passages "
        "and reports against the nuggets."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"no collection '{options['collection']}'")
        self.stdout.write(subquestions_from_nuggets(collection).summary())
