"""manage.py import_crux_labeling --collection NAME DIR (CRUX labeling platform folder)."""

from ._import_base import ImportCommand


class Command(ImportCommand):
    help = "Import a CRUX labeling platform folder: report files, runs, documents/, labels/."
    format_name = "crux-labeling"
    source_help = "the platform folder"
