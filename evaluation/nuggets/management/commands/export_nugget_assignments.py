"""manage.py export_nugget_assignments --collection NAME --judge JUDGE [--output FILE]."""

from evaluation.nuggets.export_command import ExportCommand
from evaluation.nuggets.exports import assignment_objects


class Command(ExportCommand):
    help = "Write one judge's nugget assignments as nuggetizer assign output."
    needs_judge = True

    def objects(self, collection, judge):
        return assignment_objects(collection, judge)
