"""What every import command shares: the --collection and --workspace options, error and count
reporting."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from crux_app.audit.context import audit_context
from crux_app.audit.events import audited_import
from crux_app.collection_names import collection_name_problem
from crux_app.dataio.catalog import IMPORT_FORMATS
from crux_app.dataio.collection_store import new_collections_in
from crux_app.dataio.errors import ImportFailure
from crux_app.models import Collection, Workspace
from crux_app.models.workspace import DEFAULT_WORKSPACE


def add_workspace_argument(parser) -> None:
    """``--workspace NAME``: where a new collection goes (every import command, the archive's
    restore too)."""
    parser.add_argument(
        "--workspace",
        default=None,
        help=f"the workspace a new collection goes to (default: {DEFAULT_WORKSPACE}); an "
        "existing collection must be in it when this is given",
    )


def chosen_workspace(name: str | None, collection: str | None = None) -> Workspace:
    """The workspace of ``--workspace`` (``default`` when not given, made on first use); a
    CommandError for an unknown one, or one that is not the existing ``collection``'s."""
    if name is None:
        return Workspace.objects.get_or_create(name=DEFAULT_WORKSPACE)[0]
    found = Workspace.objects.filter(name=name).first()
    if found is None:
        raise CommandError(
            f"--workspace: no workspace named {name[:200]!r} "
            f"(make it with: manage.py workspace create NAME --owner USER)"
        )
    existing = Collection.objects.filter(name=collection).select_related("workspace").first()
    if existing is not None and existing.workspace_id != found.pk:
        raise CommandError(
            f"--workspace: collection {collection!r} is in workspace "
            f"{existing.workspace.name!r}, not {found.name!r}"
        )
    return found


class ImportCommand(BaseCommand):
    """Subclasses name their catalog format and say what its source is; the format's
    declared parameters (``crux_app.dataio.catalog``) are the command's options."""

    format_name = ""
    source_help = ""  # the positional argument's help: "the run file"
    workspace: str | None = None  # --workspace, read by ``handle``

    def add_arguments(self, parser) -> None:
        parser.add_argument("--collection", required=True, help="collection name")
        add_workspace_argument(parser)
        if self._writes_own_options():
            return
        IMPORT_FORMATS[self.format_name].declared().add_arguments(parser)
        parser.add_argument(self._source_argument(), help=self.source_help)

    def _writes_own_options(self) -> bool:
        """A subclass that adds its options and reads them in ``handle_import`` itself, rather
        than from its format's declared parameters (the older way, still accepted)."""
        return type(self).handle_import is not ImportCommand.handle_import

    def _source_argument(self) -> str:
        return "dir" if IMPORT_FORMATS[self.format_name].source == "folder" else "file"

    def run_import(self, collection: str, source: str, **params: object) -> None:
        """Run the import; bad input -> CommandError "FILE:LINE: reason", database unchanged."""
        problem = collection_name_problem(collection)
        if problem is not None:
            raise CommandError(f"--collection: {problem}")
        importer = IMPORT_FORMATS[self.format_name].importer
        progress = self.verbosity > 0 and sys.stderr.isatty()
        workspace = chosen_workspace(self.workspace, collection)
        try:
            with (
                audit_context(origin="command", command=self.format_name),
                new_collections_in(workspace),
            ):
                result = audited_import(
                    importer, collection, Path(source), progress=progress, **params
                )
        except ImportFailure as failure:
            raise CommandError(str(failure)) from failure
        self.stdout.write(self.style.SUCCESS(result.summary()))
        for kind, number in result.counts.items():
            self.stdout.write(f"  {kind}: {number}")
        for warning in result.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))

    def handle(self, *args, **options) -> None:
        self.verbosity = options["verbosity"]
        self.workspace = options.get("workspace")
        if self._writes_own_options():
            self.handle_import(**options)
            return
        params = IMPORT_FORMATS[self.format_name].declared().from_options(options)
        self.run_import(options["collection"], options[self._source_argument()], **params)

    def handle_import(self, **options) -> None:
        """Overridden only by a subclass that writes its own options."""
