"""manage.py aggregate_labels --collection C --task TASK [--judges J ...] [--campaign SLUG]
--method M [--name N] [--seed S] [--format json|text]: people's labels of a task combined by a
crowd model into the judge ``aggregated:<name>`` (``annotation/crowd/label_aggregation.py``)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.crowd.aggregation import METHODS, AggregationError
from annotation.crowd.label_aggregation import AggregationResult, run_aggregation
from annotation.crowd.params import AggregationParams
from annotation.labels.collection import UnknownJudges
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.models import Collection
from crux_app.parameters import ParameterError


class Command(BaseCommand):
    help = (
        "Aggregate the labels of one task in a collection (default: every person who gave "
        "one) with a crowd model, stored as the judge aggregated:<name> (replacing its labels "
        "of this collection and task)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        parser.add_argument("--task", required=True, choices=list(TASK_TYPE_REGISTRY))
        parser.add_argument(
            "--judges", nargs="+", help="workers (default: every person); machines may join"
        )
        AggregationParams.add_arguments(parser)
        parser.add_argument("--format", default="text", choices=["text", "json"])

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"collection {options['collection']!r} does not exist")
        try:
            params = AggregationParams.from_params(AggregationParams.from_options(options))
            result = run_aggregation(
                collection, options["task"], params, tuple(options["judges"] or ())
            )
        except (ParameterError, AggregationError, UnknownJudges) as error:
            raise CommandError(str(error)) from None
        if options["format"] == "json":
            self.stdout.write(json.dumps(result.as_json(), indent=2))
        else:
            self.stdout.write(text_report(result))


def text_report(result: AggregationResult) -> str:
    """The run in words: the judge, the method and its implementation, the workers by skill."""
    run = result.run
    words, implementation = METHODS[run.method]
    lines = [
        f"{result.judge.name}: {run.n_items} item(s) of {run.task_type} aggregated by "
        f"{run.method} ({words}; {implementation}), seed {run.seed}",
        f"machine judges in the model: {', '.join(run.machines) or 'none'}",
        "worker  skill  labels",
    ]
    for worker in sorted(run.workers, key=lambda w: (-w["skill"], w["judge"])):
        lines.append(f"{worker['judge']}  {worker['skill']:.3f}  {worker['n_labels']}")
    return "\n".join(lines)
