"""manage.py ensemble_judge --collection C --judges A B [C ...] --combine
mean|median|majority|max [--name NAME] [--min-members N]."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crux_app.inputs import EvaluationInputError, resolve_collection
from evaluation.judge_report.ensembles import build_ensemble
from evaluation.judge_report.method.ensemble import COMBINERS


class Command(BaseCommand):
    help = (
        "Build (or refresh) an ensemble judge in a collection: a judge of kind 'ensemble' whose "
        "ratings, report coverage marks and passage qrels combine its members' labels "
        "(mean or median rounded half up, majority with ties to the lower label, or max), "
        "stored as ordinary labels so every page reads it like any judge. Re-running refreshes "
        "the labels from the members' current ones; everything is one transaction."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument(
            "--judges", nargs="+", required=True, metavar="JUDGE", help="2 or more member judges"
        )
        parser.add_argument("--combine", choices=COMBINERS, required=True)
        parser.add_argument("--name", help="the ensemble's name (default: COMBINE(A, B, ...))")
        parser.add_argument(
            "--min-members",
            type=int,
            help="label an item only where at least this many members labelled it "
            "(1..number of members; default: all of them)",
        )

    def handle(self, *args, **options) -> None:
        try:
            collection = resolve_collection(options["collection"])
            build = build_ensemble(
                collection,
                options["judges"],
                options["combine"],
                name=options["name"],
                min_members=options["min_members"],
            )
        except EvaluationInputError as error:
            raise CommandError(str(error)) from None
        judge = build.ensemble.judge
        counts = ", ".join(f"{n:,} {kind.replace('_', ' ')}" for kind, n in build.counts.items())
        self.stdout.write(
            f"ensemble {judge.name!r} ({judge.model_id}) in {collection.name!r}: {counts}"
        )
