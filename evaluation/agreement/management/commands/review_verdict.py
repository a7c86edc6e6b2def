"""manage.py review_verdict --campaign SLUG [--format json|text]: who was right in a review
campaign (the figures of its "who was right" page)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import ReviewCampaign
from evaluation.agreement.review_verdict import review_verdict


def _share(share: dict) -> str:
    if share["estimate"] is None:
        return "–"
    return f"{share['estimate']:.3f} [{share['low']:.3f}, {share['high']:.3f}] n={share['n']}"


class Command(BaseCommand):
    help = (
        "Per annotator and machine judge of a review campaign: the share of reviewed "
        "disagreements decided their way, and accuracy and confusion against the adjudicated "
        "reference (weighted by inverse inclusion probabilities), with Wilson 95% intervals."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="review campaign slug or name")
        parser.add_argument("--format", default="json", choices=("json", "text"))

    def handle(self, *args, **options) -> None:
        name = options["campaign"]
        campaign = (
            ReviewCampaign.objects.filter(slug=name).first()
            or ReviewCampaign.objects.filter(name=name).first()
        )
        if campaign is None:
            raise CommandError(f"review campaign {name!r} does not exist")
        data = review_verdict(campaign).as_dict()
        if options["format"] == "json":
            self.stdout.write(json.dumps(data, ensure_ascii=False, indent=2))
            return
        self.stdout.write(
            f"{data['campaign']}: {data['n_decided']} of {data['n_items']} decided, "
            f"reference {data['adjudicated_judge']}"
        )
        for judge in data["judges"]:
            self.stdout.write(
                f"{judge['judge']} ({judge['kind']}): decided their way "
                f"{_share(judge['decided_their_way'])}; accuracy {_share(judge['accuracy'])}"
            )
