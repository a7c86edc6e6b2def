"""manage.py adopt_nugget_edits --campaign SLUG --annotator USERNAME [--topic ID] [--dry-run]."""

from django.core.management.base import BaseCommand, CommandError

from crux_app.read_parameters import TOPIC  # the declared read side
from evaluation.nuggets.post_edit_adoption import AdoptionError, adopt_nugget_edits


class Command(BaseCommand):
    help = (
        "Write an annotator's post-edited nugget lists (a nugget post-editing campaign) into "
        "the collection's nuggets, as a re-import would: unchanged nuggets keep their labels, "
        "edited ones lose them; the edit history is kept. All topics or none."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--campaign", required=True, help="the campaign's slug")
        parser.add_argument("--annotator", required=True, help="the annotator's username")
        parser.add_argument(
            "--topic", type=TOPIC.option_value_of(str), help="only this topic (its external id)"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would change, and change nothing"
        )

    def handle(self, *args, **options) -> None:
        try:
            adoption = adopt_nugget_edits(
                options["campaign"],
                options["annotator"],
                topic=options["topic"],
                dry_run=options["dry_run"],
            )
        except AdoptionError as error:
            raise CommandError(str(error)) from None
        for row in adoption.topics:
            self.stdout.write(
                f"{row.topic}: {row.status} (assignment {row.assignment}, "
                f"{row.operations} operation(s))"
            )
        self.stdout.write(adoption.summary())
