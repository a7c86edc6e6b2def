"""manage.py merge_adjudicated --collection NAME --task TYPE --name NAME [--campaigns SLUG ...]:
the decisions of several review campaigns as one adjudicated judge."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.review.merge import MergeError, merge_adjudicated, mergeable_tasks
from annotation.task_types.names import DEFAULT_TASK_TYPE
from crux_app.models import Collection


class Command(BaseCommand):
    help = (
        "Write the decisions of a collection's review campaigns of one task (default: all of "
        "them) as the labels of one adjudicated judge, adjudicated:merged:<name>, replacing "
        "its labels; where campaigns decided an item differently the later decision counts."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument("--task", default=DEFAULT_TASK_TYPE, choices=mergeable_tasks())
        parser.add_argument("--name", required=True, help="the merged judge's name")
        parser.add_argument("--campaigns", nargs="+", help="review campaign slugs (default: all)")

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"collection {options['collection']!r} does not exist")
        try:
            result = merge_adjudicated(
                collection, options["task"], options["name"], options["campaigns"] or ()
            )
        except MergeError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"{result.judge.name}: {result.n_labels} label(s) from {', '.join(result.campaigns)}"
            f"; {result.n_conflicts} item(s) decided differently (the later decision counts)"
        )
