"""manage.py import_crux --collection NAME --split SPLIT --tau T DIR (CRUX hub release)."""

from ._import_base import ImportCommand


class Command(ImportCommand):
    help = "Import a CRUX hub release folder (the release root or its ranking_T folder)."
    format_name = "crux"
    source_help = "release root or ranking_T folder"
