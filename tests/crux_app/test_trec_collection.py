"""A small TREC-format collection end to end through the commands: topics, runs with missing
passages, two judges' qrels (NIST's and an LLM's), then the passages' texts."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.inputs import qrels_sources, resolve_qrels_source
from crux_app.models import Collection, Judge, Passage, PassageQrel, Run

from .importer_inputs import row_counts
from .trec_inputs import PASSAGES, TOPICS, trec_files

pytestmark = pytest.mark.django_db


def manage(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def import_everything(files: dict) -> None:
    manage("import_topics", "--collection=trec", str(files["topics"]))
    for run in ("bm25", "dense", "hybrid"):
        manage(
            "import_run",
            "--collection=trec",
            f"--name={run}",
            "--add-missing-passages",
            str(files[run]),
        )
    manage("import_qrels", "--collection=trec", "--judge=nist", "--kind=human", str(files["nist"]))
    manage(
        "import_qrels",
        "--collection=trec",
        "--judge=umbrela",
        "--kind=llm",
        "--model-id=gpt-4o",
        "--add-missing-passages",
        str(files["umbrela"]),
    )
    manage("import_passages", "--collection=trec", str(files["passages"]))


def test_topics_runs_two_judges_qrels_and_texts(tmp_path):
    files = trec_files(tmp_path)
    import_everything(files)

    collection = Collection.objects.get(name="trec")
    assert collection.topics.count() == len(TOPICS)
    assert sorted(Run.objects.values_list("name", flat=True)) == ["bm25", "dense", "hybrid"]
    assert Run.objects.get(name="bm25").entries.count() == 7
    assert dict(qrels_sources(collection)) == {"nist": 6, "umbrela": 6}
    assert resolve_qrels_source(collection, "umbrela") == "umbrela"
    assert {(j.name, j.kind, j.model_id) for j in Judge.objects.all()} == {
        ("nist", "human", ""),
        ("umbrela", "llm", "gpt-4o"),
    }
    grades = PassageQrel.objects.filter(topic__external_id="101", passage__external_id="d0")
    assert dict(grades.values_list("source", "grade")) == {"nist": 2, "umbrela": 3}
    texts = dict(Passage.objects.filter(has_text=True).values_list("external_id", "text"))
    assert texts == PASSAGES
    assert list(Passage.objects.filter(has_text=False).values_list("external_id", flat=True)) == [
        "d9"
    ]

    before = row_counts()
    import_everything(files)  # the whole collection again: nothing changes
    assert row_counts() == before
