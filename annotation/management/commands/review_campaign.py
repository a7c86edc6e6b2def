"""manage.py review_campaign --collection NAME --name NAME [queue choices as review_queue]
[--show-sources] [--reviewer USER ...]: make a review campaign of the disagreement queue and
print its slug, item count and workspace path."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.urls import reverse

from annotation.labels.collection import UnknownJudges
from annotation.models import ReviewCampaign
from annotation.review.access import add_reviewer
from annotation.review.campaigns import create_review_campaign
from annotation.review.queue_arguments import add_queue_arguments, queue_choice, queue_collection

NAME_LENGTH = 200  # ReviewCampaign.name


class Command(BaseCommand):
    help = (
        "Make a review campaign of a collection's disagreement queue (the items review_queue "
        "prints with the same choices), blind unless --show-sources; --reviewer gives existing "
        "accounts the campaign. Prints the campaign's slug, its item count and its workspace."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True, help="the campaign's name (unique)")
        add_queue_arguments(parser)
        parser.add_argument(
            "--show-sources", action="store_true", help="show reviewers who gave each label"
        )
        parser.add_argument("--reviewer", nargs="+", default=[], help="account names")

    def handle(self, *args, **options) -> None:
        name = options["name"].strip()
        if not name or len(name) > NAME_LENGTH:
            raise CommandError(f"--name must be 1 to {NAME_LENGTH} characters")
        if ReviewCampaign.objects.filter(name=name).exists():
            raise CommandError(f"a review campaign is already called {name!r}")
        collection, choice = queue_collection(options), queue_choice(options)
        try:
            with transaction.atomic():
                campaign = create_review_campaign(
                    collection, name, choice, show_sources=options["show_sources"]
                )
                for username in options["reviewer"]:
                    add_reviewer(campaign, username)
        except (UnknownJudges, LookupError, ValueError) as error:
            raise CommandError(str(error)) from None
        path = reverse("review-workspace", args=[campaign.slug])
        self.stdout.write(f"review campaign {campaign.slug}: {campaign.items.count()} item(s)")
        self.stdout.write(f"workspace: {path}")
