"""manage.py review_queue --collection NAME [--task TYPE] [--judges A B ...] [--kind KIND]
[--topic T ...] [--min-gap G] [--sample N --sampling MODE --seed S] --format json|text:
the items a review campaign made with these choices would hold."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.labels.collection import UnknownJudges
from annotation.review.queue_arguments import add_queue_arguments, queue_choice, queue_collection
from annotation.review.selection import build_queue


class Command(BaseCommand):
    help = (
        "Print the disagreement queue of a collection: items that at least two of the judges "
        "labelled with labels not all equal. With no --judges, every human judge of the "
        'collection. JSON: {"n_items": N, "items": [{"key", "labels": {judge: label}}]}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_queue_arguments(parser)
        parser.add_argument("--format", default="json", choices=("json", "text"))

    def handle(self, *args, **options) -> None:
        collection, choice = queue_collection(options), queue_choice(options)
        try:
            items = build_queue(collection, choice).items
        except (UnknownJudges, ValueError) as error:
            raise CommandError(str(error)) from None
        if options["format"] == "json":
            data = {
                "n_items": len(items),
                "items": [{"key": i.key, "labels": i.labels} for i in items],
            }
            self.stdout.write(json.dumps(data, ensure_ascii=False))
            return
        self.stdout.write(f"{len(items)} item(s) in the queue")
        for item in items:
            labels = ", ".join(f"{j}={v}" for j, v in item.labels.items())
            self.stdout.write(f"{item.key}\tgap {item.gap:g}\t{labels}")
