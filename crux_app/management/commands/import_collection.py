"""manage.py import_collection ARCHIVE.tar.gz [--as NEW] [--workspace W]."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crux_app.dataio.archive.restore import ArchiveRefused, import_collection

from ._import_base import add_workspace_argument, chosen_workspace


class Command(BaseCommand):
    help = (
        "Restore a collection archive (export_collection) in one transaction, refusing a "
        "corrupted or newer-format archive or a collection name in use."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("archive", help="the .tar.gz written by export_collection")
        parser.add_argument("--as", dest="new_name", help="the restored collection's name")
        add_workspace_argument(parser)

    def handle(self, *args, **options) -> None:
        path = Path(options["archive"])
        if not path.is_file():
            raise CommandError(f"no file {path}")
        try:
            workspace = chosen_workspace(options["workspace"])
            collection = import_collection(path, new_name=options["new_name"], workspace=workspace)
        except ArchiveRefused as refusal:
            raise CommandError(str(refusal)) from refusal
        self.stdout.write(f"restored collection {collection.name} from {path}")
