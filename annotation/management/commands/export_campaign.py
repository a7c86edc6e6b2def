"""manage.py export_campaign --campaign SLUG --format csv|annotators|qrels|qlabels
[--annotator USERNAME] OUT: the campaign page's exports from the command line."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.exports import exports
from annotation.models import Campaign


class Command(BaseCommand):
    help = (
        "Export a campaign: every label as CSV, the per-annotator table as CSV, or one "
        "annotator's labels in the CRUX platform's qrels (passage rating) / qlabels (report "
        "coverage) JSONL."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument("--format", required=True, choices=exports.FORMATS)
        parser.add_argument("--annotator", help="username (qrels / qlabels only)")
        parser.add_argument("out", type=Path, help="output file")

    def handle(self, *args, **options) -> None:
        campaign = Campaign.objects.filter(slug=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"campaign '{options['campaign']}' does not exist")
        fmt: str = options["format"]
        out: Path = options["out"]
        if fmt in (exports.CSV_FORMAT, exports.ANNOTATORS_FORMAT):
            with out.open("w", encoding="utf-8", newline="") as handle:
                n = exports.write_csv(campaign, handle, fmt)
            self.stdout.write(f"{n} rows written to {out}")
            return
        if fmt != exports.platform_format(campaign):
            raise CommandError(f"--format {fmt} does not fit task '{campaign.task_type}'")
        username = options.get("annotator")
        if not username:
            raise CommandError(f"--annotator is needed for --format {fmt}")
        annotator = get_user_model().objects.filter(username=username).first()
        if annotator is None:
            raise CommandError(f"annotator '{username}' does not exist")
        with out.open("w", encoding="utf-8", newline="\n") as handle:
            n = exports.write_platform_labels(campaign, annotator, handle)
        self.stdout.write(f"{n} {fmt} lines written to {out}")
