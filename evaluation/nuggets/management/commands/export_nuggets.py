"""manage.py export_nuggets --collection NAME [--output FILE]: nuggetizer create output."""

from evaluation.nuggets.export_command import ExportCommand
from evaluation.nuggets.exports import nugget_objects


class Command(ExportCommand):
    help = 'Write a collection\'s nuggets, one {"qid", "query", "nuggets"} object per line.'

    def objects(self, collection, judge):
        return nugget_objects(collection)
