"""What the three export commands share: the collection (and judge) lookup, the output file."""

from __future__ import annotations

from collections.abc import Iterator

from django.core.management.base import BaseCommand, CommandError

from crux_app.models import Collection, Judge
from crux_app.read_parameters import JUDGE  # the declared read side
from evaluation.nuggets.exports import json_line


class ExportCommand(BaseCommand):
    needs_judge = False

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        if self.needs_judge:
            parser.add_argument(
                "--judge", required=True, type=JUDGE.option_value_of(str), help="the judge's name"
            )
        parser.add_argument("--output", default="-", help="file to write (default: stdout)")

    def objects(self, collection: Collection, judge: Judge | None) -> Iterator[dict]:
        raise NotImplementedError

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"no collection '{options['collection']}'")
        judge = None
        if self.needs_judge:
            judge = Judge.objects.filter(name=options["judge"]).first()
            if judge is None:
                raise CommandError(f"no judge '{options['judge']}'")
        lines = (json_line(item) for item in self.objects(collection, judge))
        if options["output"] == "-":
            for line in lines:
                self.stdout.write(line, ending="")
        else:
            with open(options["output"], "w", encoding="utf-8", newline="\n") as out:
                out.writelines(lines)
