"""Create the demo's ready campaign: passage ratings on the ``demo`` collection, overlap 2.

Run after ``load_demo`` (``scripts/demo.sh`` does). Idempotent: an existing campaign of that
name is left as it is. The demo's two accounts are invited, so overlap 2 can be reached.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.campaigns.setup import SelectionOptions, create_campaign
from annotation.models import Campaign
from annotation.queue.selection import SAMPLE
from annotation.task_types.names import PASSAGE_RATING
from crux_app.models import Collection

NAME = "Demo: passage ratings"
ITEMS = 60  # a sample: two people label it in about twenty minutes each
GUIDELINES = (
    "Rate how well the **passage** answers the **sub-question**, from 0 (not at all) to 5 "
    "(fully, with the key facts). Judge the passage alone, not what you know. Keys: 0-5 to "
    "rate, Enter to submit, `s` to skip, `u` to undo your last answer."
)


class Command(BaseCommand):
    help = "Create the demo's passage-rating campaign (overlap 2) for the demo accounts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", default="demo")
        parser.add_argument("--users", nargs="+", default=["annotator", "researcher"])

    def handle(self, *args, **options) -> None:
        if Campaign.objects.filter(name=NAME).exists():
            self.stdout.write(f"campaign {NAME!r}: exists, left unchanged")
            return
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(
                f"collection {options['collection']!r} does not exist; run load_demo"
            )
        users = list(get_user_model().objects.filter(username__in=options["users"]))
        campaign = Campaign(
            name=NAME,
            collection=collection,
            task_type=PASSAGE_RATING,
            guidelines_md=GUIDELINES,
            overlap=2,
            assignment_policy=Campaign.AssignmentPolicy.OVERLAP_FIRST,
        )
        create_campaign(campaign, SelectionOptions(mode=SAMPLE, sample_size=ITEMS), users)
        self.stdout.write(
            f"campaign {NAME!r}: {campaign.items.count()} items, overlap 2, invited "
            + ", ".join(sorted(u.username for u in users))
        )
