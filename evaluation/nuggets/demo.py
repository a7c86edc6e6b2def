"""The nugget demo collection (``fixtures/nuggets_demo``, original text): loaded by
``manage.py load_demo`` through ``crux_app.demo_data``, so the "where lost" bars are filled on
the first visit."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from crux_app.demo_data import DemoData

COLLECTION = "demo-nuggets"
FOLDER = "nuggets_demo"
JUDGES = (
    ("import_nugget_assignments", "assignments.jsonl", "demo-nugget-llm", "demo-nuggetizer"),
    ("import_nugget_ratings", "ratings.jsonl", "demo-nugget-rater", "demo-rater"),
)


def load(fixtures: Path, write: Callable[[str], None]) -> None:
    folder = fixtures / FOLDER
    quiet = StringIO()  # the per-import counts would drown load_demo's own lines
    call_command(
        "import_nuggets", "--collection", COLLECTION, folder / "nuggets.jsonl", stdout=quiet
    )
    call_command(
        "import_passages", "--collection", COLLECTION, folder / "passages.jsonl", stdout=quiet
    )
    call_command(
        "import_answers", "--collection", COLLECTION, folder / "answers.jsonl", stdout=quiet
    )
    for command, file, judge, model in JUDGES:
        call_command(
            command,
            "--collection",
            COLLECTION,
            "--judge",
            judge,
            "--kind",
            "llm",
            "--model-id",
            model,
            "--prompt-version",
            "fixture",
            folder / file,
            stdout=quiet,
        )
    write(f"collection {COLLECTION}: nuggets, answers of two runs, assignments and ratings")


DEMO = DemoData(key=COLLECTION, load=load)
