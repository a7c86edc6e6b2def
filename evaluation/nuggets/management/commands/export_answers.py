"""manage.py export_answers --collection NAME [--output FILE]: TREC RAG answers."""

from evaluation.nuggets.export_command import ExportCommand
from evaluation.nuggets.exports import answer_objects


class Command(ExportCommand):
    help = "Write a collection's sentence-stored answers in the TREC RAG 2024 answer format."

    def objects(self, collection, judge):
        return answer_objects(collection)
