"""The queue choices as command-line arguments, shared by ``review_queue`` (print the queue)
and ``review_campaign`` (make a campaign of it), so the two cannot disagree."""

from __future__ import annotations

from argparse import ArgumentParser

from django.core.management.base import CommandError

from annotation.models.review import KINDS, SAMPLINGS
from annotation.review.selection import QueueChoice
from annotation.task_types.names import DEFAULT_TASK_TYPE
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.models import Collection


def add_queue_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("--collection", required=True, help="collection name")
    # Every registered task type (the built-in ones and those methods declare).
    parser.add_argument("--task", default=DEFAULT_TASK_TYPE, choices=list(TASK_TYPE_REGISTRY))
    parser.add_argument("--judges", nargs="+", help="judge names (default: every person)")
    parser.add_argument("--kind", default="any", choices=list(KINDS), help="disagreement")
    parser.add_argument("--topic", nargs="+", help="topic ids to keep")
    parser.add_argument("--min-gap", type=float, default=0.0, help="smallest label gap")
    parser.add_argument("--sample", type=int, help="how many items (default: all)")
    parser.add_argument("--sampling", default="all", choices=list(SAMPLINGS))
    parser.add_argument("--seed", type=int, default=0)


def queue_collection(options: dict) -> Collection:
    collection = Collection.objects.filter(name=options["collection"]).first()
    if collection is None:
        raise CommandError(f"collection {options['collection']!r} does not exist")
    return collection


def queue_choice(options: dict) -> QueueChoice:
    """The choices the arguments make (CommandError on out-of-range values)."""
    if options["sample"] is not None and options["sample"] < 1:
        raise CommandError("--sample must be at least 1")
    if options["min_gap"] < 0:
        raise CommandError("--min-gap must be 0 or more")
    return QueueChoice(
        task_type=options["task"],
        judges=tuple(options["judges"] or ()),
        kind=options["kind"],
        topics=tuple(options["topic"] or ()),
        min_gap=options["min_gap"],
        sample=options["sample"],
        sampling=options["sampling"],
        seed=options["seed"],
    )
