"""manage.py nuggets_from_subquestions --collection NAME [--importance vital|okay]."""

from django.core.management.base import BaseCommand, CommandError

from crux_app.models import Collection
from evaluation.nuggets.conversion import nuggets_from_subquestions
from evaluation.nuggets.method.scores import IMPORTANCES, VITAL


class Command(BaseCommand):
    help = (
        "Make each topic's nuggets from its CRUX sub-questions (in order, placeholders "
        "skipped), linked to them, so that CRUX's passage ratings tell which passages support "
        "each nugget. Unchanged nuggets keep their importance and labels."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument(
            "--importance",
            choices=IMPORTANCES,
            default=VITAL,
            help="the importance of new nuggets (CRUX does not label importance)",
        )

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"no collection '{options['collection']}'")
        result = nuggets_from_subquestions(collection, options["importance"])
        self.stdout.write(result.summary())
