"""manage.py nugget_losses --collection NAME [--judge J] [--support-judge S] [--sentence-judge G]
[--k K] [--tau T] [--format table|json]: per run, where its vital nuggets were lost (the page's
stacked bars)."""

import json

from django.core.management.base import BaseCommand, CommandError

from crux_app.models import Collection, Judge
from evaluation.nuggets.losses import (
    LossSettings,
    losses_json,
    nugget_losses,
    run_losses,
    sentence_judges,
    support_judges,
)
from evaluation.nuggets.method.attribution import CATEGORIES
from evaluation.nuggets.params import LossParams
from evaluation.nuggets.run_scores import assignment_judges


def named_judge(name: str | None, fallback: list[Judge], what: str) -> Judge | None:
    if name:
        judge = Judge.objects.filter(name=name).first()
        if judge is None:
            raise CommandError(f"no judge '{name}'")
        return judge
    return fallback[0] if fallback else None


class Command(BaseCommand):
    help = (
        "Per run, how many vital nuggets were a retrieval miss, a generation drop, unsupported "
        "or delivered; with a human assignment judge, 95% Wilson intervals of the shares."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument("--judge", help="whose assignments (default: the most)")
        parser.add_argument(
            "--support-judge", help="whose nugget-passage ratings (default: the most)"
        )
        parser.add_argument(
            "--sentence-judge", help="whose sentence-citation grades (default: the most)"
        )
        LossParams.add_arguments(parser)
        parser.add_argument("--format", choices=("table", "json"), default="table")

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"no collection '{options['collection']}'")
        judge = named_judge(options["judge"], assignment_judges(collection), "assignment")
        if judge is None:
            raise CommandError(f"collection '{collection.name}' has no nugget assignments")
        support = named_judge(options["support_judge"], support_judges(collection), "support")
        params = LossParams.from_params(LossParams.from_options(options))
        grader = named_judge(options["sentence_judge"], sentence_judges(collection), "sentence")
        settings = LossSettings(judge, support, params.k, params.tau, grader)
        per_run = run_losses(nugget_losses(collection, settings), judge.kind == Judge.Kind.HUMAN)
        if options["format"] == "json":
            self.stdout.write(json.dumps(losses_json(per_run, settings), indent=2))
            return
        self.stdout.write(
            f"judge {judge.name}; support judge {support.name if support else '(none)'}; "
            f"sentence judge {grader.name if grader else '(none)'}; "
            f"k {params.k}; tau {params.tau}"
        )
        self.stdout.write("run".ljust(24) + "".join(c.rjust(17) for c in CATEGORIES))
        for r in per_run:
            self.stdout.write(
                f"{r.run[:24]:<24}" + "".join(f"{r.counts[c]:17d}" for c in CATEGORIES)
            )
