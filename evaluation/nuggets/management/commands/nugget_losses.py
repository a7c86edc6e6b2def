"""manage.py nugget_losses --collection NAME [--judge J] [--support-judge S] [--sentence-judge G]
[--k K] [--tau T] [--format table|json]: per run, where its vital nuggets were lost (the page's
stacked bars)."""

import json

from django.core.management.base import BaseCommand, CommandError

from crux_app.models import Collection, Judge
from crux_app.read_parameters import JUDGE
from evaluation.nuggets.judge_warnings import ASSIGNMENTS, GRADES, RATINGS, Labels, default_of
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


def named_judge(
    name: str | None, collection: Collection, fallback: list[Judge], labels: Labels
) -> Judge | None:
    """The named judge, else the pages' default among ``fallback`` (crux_app.judge_choice)."""
    if name:
        judge = Judge.objects.filter(name=name).first()
        if judge is None:
            raise CommandError(f"no judge '{name}'")
        return judge
    return default_of(collection, fallback, labels)


class Command(BaseCommand):
    help = (
        "Per run, how many vital nuggets were a retrieval miss, a generation drop, unsupported "
        "or delivered; with a human assignment judge, 95% Wilson intervals of the shares."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        # Three judges, each the declared judge (crux_app.read_parameters).
        for option, whose in (
            (JUDGE.option, "assignments"),
            ("--support-judge", "nugget-passage ratings"),
            ("--sentence-judge", "sentence-citation grades"),
        ):
            parser.add_argument(
                option, type=JUDGE.option_value_of(str), help=f"whose {whose}; {JUDGE.help}"
            )
        LossParams.add_arguments(parser)
        parser.add_argument("--format", choices=("table", "json"), default="table")

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"no collection '{options['collection']}'")
        judge = named_judge(
            options["judge"], collection, assignment_judges(collection), ASSIGNMENTS
        )
        if judge is None:
            raise CommandError(f"collection '{collection.name}' has no nugget assignments")
        support = named_judge(
            options["support_judge"], collection, support_judges(collection), RATINGS
        )
        params = LossParams.from_params(LossParams.from_options(options))
        grader = named_judge(
            options["sentence_judge"], collection, sentence_judges(collection), GRADES
        )
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
