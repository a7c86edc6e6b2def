"""import_run --add-missing-passages: passages a TREC run names that the collection lacks are
created without text; without the flag they are FILE:LINE errors. Speed: a 1,000-passages-per-
topic run of 50 topics imports in seconds."""

import time
from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.dataio.imports.run import import_run
from crux_app.dataio.imports.topics import import_topics
from crux_app.models import Passage, Run

from .importer_inputs import row_counts, write_lines
from .trec_inputs import command_fails, trec_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def trec(tmp_path) -> dict:
    files = trec_files(tmp_path / "trec")
    import_topics("trec", files["topics"])
    return files


def test_without_the_flag_an_unknown_passage_is_an_error(trec):
    command_fails(
        "import_run",
        "--collection=trec",
        "--name=bm25",
        str(trec["bm25"]),
        message=f"{trec['bm25']}:1: unknown passage 'd0' in collection 'trec'",
    )


def test_with_the_flag_missing_passages_are_created_without_text(trec):
    out = StringIO()
    call_command(
        "import_run",
        "--collection=trec",
        "--name=bm25",
        "--add-missing-passages",
        str(trec["bm25"]),
        stdout=out,
    )
    assert "passages without text: 7" in out.getvalue()
    passages = Passage.objects.filter(collection__name="trec")
    assert sorted(passages.values_list("external_id", flat=True)) == [
        "d0",
        "d1",
        "d2",
        "d3",
        "d4",
        "d5",
        "d9",
    ]
    assert not passages.filter(has_text=True).exists()
    run = Run.objects.get(name="bm25")
    first = run.entries.order_by("line_order").first()
    assert (first.topic.external_id, first.passage.external_id, first.rank) == ("101", "d0", 1)


def test_reimport_with_the_flag_is_idempotent_and_reuses_passages(trec):
    import_run("trec", trec["bm25"], run_name="bm25", add_missing_passages=True)
    before = row_counts()
    result = import_run("trec", trec["bm25"], run_name="bm25", add_missing_passages=True)
    assert result.counts["passages without text"] == 0
    assert row_counts() == before
    result = import_run("trec", trec["dense"], run_name="dense", add_missing_passages=True)
    assert result.counts["passages without text"] == 1  # d6; the others came with bm25


def test_a_bad_line_leaves_no_created_passage_behind(trec, tmp_path):
    path = write_lines(tmp_path / "r.run", ["101 Q0 new1 1 2.0 x", "999 Q0 new2 2 1.0 x"])
    command_fails(
        "import_run",
        "--collection=trec",
        "--name=r",
        "--add-missing-passages",
        str(path),
        message=f"{path}:2: unknown topic '999' in collection 'trec'",
    )
    assert not Passage.objects.exists()


def test_a_passage_id_too_long_to_store(trec, tmp_path):
    path = write_lines(tmp_path / "r.run", [f"101 Q0 {'p' * 301} 1 2.0 x"])
    command_fails(
        "import_run",
        "--collection=trec",
        "--name=r",
        "--add-missing-passages",
        str(path),
        message=f"{path}:1: passage id is 301 characters long, at most 300 are stored",
    )


def test_a_rank_beyond_the_stored_range(trec, tmp_path):
    path = write_lines(tmp_path / "r.run", ["101 Q0 d0 3000000000 2.0 x"])
    command_fails(
        "import_run",
        "--collection=trec",
        "--name=r",
        "--add-missing-passages",
        str(path),
        message=f"{path}:1: rank must lie in 0..2147483647, got 3000000000",
    )


def test_a_thousand_passages_per_topic_for_fifty_topics_imports_in_seconds(tmp_path):
    topics = write_lines(tmp_path / "topics.tsv", [f"q{q}\ttopic {q}" for q in range(50)])
    import_topics("big", topics)
    lines = [
        f"q{q} Q0 doc{(q * 7919 + i * 104729) % 120000} {i + 1} {1000 - i}.25 bm25"
        for q in range(50)
        for i in range(1000)
    ]
    path = write_lines(tmp_path / "big.run", lines)
    started = time.perf_counter()
    result = import_run("big", path, run_name="bm25", add_missing_passages=True)
    elapsed = time.perf_counter() - started
    assert result.counts["run entries"] == 50_000
    assert Run.objects.get(name="bm25").entries.count() == 50_000
    # About 2 s on a development machine; the bound leaves room for a busy CI box.
    assert elapsed < 30, f"the run import took {elapsed:.1f}s"
