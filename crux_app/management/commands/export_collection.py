"""manage.py export_collection --collection NAME --out NAME.tar.gz [--with-accounts]."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crux_app.dataio.archive.export import export_collection
from crux_app.models import Collection


class Command(BaseCommand):
    help = (
        "Write everything about one collection (its rows, every judge's labels, every method's "
        "results, campaigns, reviews) to a .tar.gz archive with a checksummed manifest."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True)
        parser.add_argument("--out", required=True, help="the archive to write (.tar.gz)")
        parser.add_argument(
            "--with-accounts",
            action="store_true",
            help="name users by their user names (default: stable pseudonyms)",
        )

    def handle(self, *args, **options) -> None:
        collection = Collection.objects.filter(name=options["collection"]).first()
        if collection is None:
            raise CommandError(f"no collection named {options['collection']!r}")
        out = Path(options["out"])
        if not out.parent.is_dir():
            raise CommandError(f"cannot write {out}: no folder {out.parent}")
        manifest = export_collection(collection, out, with_accounts=options["with_accounts"])
        rows = sum(table["rows"] for table in manifest["tables"])
        self.stdout.write(f"{rows:,} rows of {collection.name} written to {out}")
