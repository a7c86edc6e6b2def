"""import_qrels: a TREC qrels file becomes one judge's passage qrels (source = the judge's name),
selectable as a qrels source; a bad line names FILE:LINE and nothing is written."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.dataio.imports.qrels import import_qrels
from crux_app.dataio.qrels_judge import judge_of_source, qrels_judges
from crux_app.inputs import qrels_sources, resolve_qrels_source
from crux_app.models import Collection, Judge, Passage, PassageQrel

from .importer_inputs import row_counts, write_lines
from .trec_inputs import command_fails, trec_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def trec(tmp_path) -> dict:
    """A collection holding the topics and passages (no qrels, no runs yet)."""
    files = trec_files(tmp_path / "trec")
    call_command("import_topics", "--collection", "trec", str(files["topics"]), stdout=StringIO())
    call_command(
        "import_passages", "--collection", "trec", str(files["passages"]), stdout=StringIO()
    )
    return files


def qrels(source: str) -> dict[tuple[str, str], int]:
    rows = PassageQrel.objects.filter(source=source).values_list(
        "topic__external_id", "passage__external_id", "grade"
    )
    return {(topic, passage): grade for topic, passage, grade in rows}


def run_import(path, *options: str) -> str:
    out = StringIO()
    call_command("import_qrels", "--collection", "trec", *options, str(path), stdout=out)
    return out.getvalue()


def test_human_qrels_become_a_judges_qrels_source(trec):
    out = run_import(trec["nist"], "--judge", "nist", "--kind", "human")
    assert "6 qrels" in out
    judge = Judge.objects.get(name="nist")
    assert (judge.kind, judge.model_id, judge.prompt_version) == ("human", "", "")
    assert qrels("nist")[("101", "d0")] == 2
    assert len(qrels("nist")) == 6
    collection = Collection.objects.get(name="trec")
    assert qrels_sources(collection) == [("nist", 6)]
    assert resolve_qrels_source(collection, "nist") == "nist"
    assert judge_of_source("nist") == judge
    assert judge.judgments.count() == 0  # qrels are not 0-5 sub-question ratings


def test_llm_qrels_beside_human_ones(trec):
    run_import(trec["nist"], "--judge", "nist", "--kind", "human")
    run_import(trec["umbrela"], "--judge", "umbrela", "--kind", "llm", "--model-id", "gpt-4o")
    judge = Judge.objects.get(name="umbrela")
    assert (judge.kind, judge.model_id) == ("llm", "gpt-4o")
    assert qrels("umbrela")[("101", "d0")] == 3
    collection = Collection.objects.get(name="trec")
    assert {s for s, _ in qrels_sources(collection)} == {"nist", "umbrela"}
    assert [j.name for j in qrels_judges(collection)] == ["nist", "umbrela"]


def test_reimport_is_idempotent_and_replaces_only_the_files_topics(trec, tmp_path):
    run_import(trec["nist"], "--judge", "nist", "--kind", "human")
    before = row_counts()
    run_import(trec["nist"], "--judge", "nist", "--kind", "human")
    assert row_counts() == before
    assert len(qrels("nist")) == 6

    # Topic 101 now has one qrel with a new grade; 102 and 103 keep theirs.
    update = write_lines(tmp_path / "fix.qrels", ["101 0 d1 3"])
    run_import(update, "--judge", "nist", "--kind", "human")
    stored = qrels("nist")
    assert [k for k in stored if k[0] == "101"] == [("101", "d1")]
    assert stored[("101", "d1")] == 3
    assert len(stored) == 4


def test_iteration_column_is_ignored_and_grades_may_be_negative(trec, tmp_path):
    path = write_lines(tmp_path / "q.qrels", ["101 Q0 d0 -2", "101\t1\td1\t4"])
    run_import(path, "--judge", "web", "--kind", "human")
    assert qrels("web") == {("101", "d0"): -2, ("101", "d1"): 4}


def test_unknown_passage_without_and_with_add_missing_passages(trec, tmp_path):
    path = write_lines(tmp_path / "q.qrels", ["101 0 d0 1", "101 0 msmarco_9 2"])
    command_fails(
        "import_qrels",
        "--collection=trec",
        "--judge=nist",
        "--kind=human",
        str(path),
        message=f"{path}:2: unknown passage 'msmarco_9' in collection 'trec'",
    )
    assert not Judge.objects.exists()  # the judge is not created either

    out = run_import(path, "--judge", "nist", "--kind", "human", "--add-missing-passages")
    assert "passages without text: 1" in out
    passage = Passage.objects.get(external_id="msmarco_9")
    assert (passage.has_text, passage.text) == (False, "")
    assert qrels("nist")[("101", "msmarco_9")] == 2

    before = row_counts()
    run_import(path, "--judge", "nist", "--kind", "human", "--add-missing-passages")
    assert row_counts() == before


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        (
            ["101 0 d0 1", "101 0 d1"],
            "2: expected 4 whitespace-separated fields (qid 0 docid grade), got 3",
        ),
        (["101 0 d0 high"], "1: grade must be an integer, got 'high'"),
        (["101 0 d0 40000"], "1: grade must lie in -32768..32767, got 40000"),
        (["101 0 d0 1", "999 0 d1 1"], "2: unknown topic '999' in collection 'trec'"),
        (["101 0 d0 1", "101 0 d0 2"], "2: duplicate qrel for (101, d0), first at line 1"),
    ],
)
def test_bad_lines(trec, tmp_path, lines, reason):
    path = write_lines(tmp_path / "q.qrels", lines)
    command_fails(
        "import_qrels",
        "--collection=trec",
        "--judge=nist",
        "--kind=human",
        "--add-missing-passages",
        str(path),
        message=f"{path}:{reason}",
    )


def test_too_long_passage_id_with_add_missing_passages(trec, tmp_path):
    path = write_lines(tmp_path / "q.qrels", ["101 0 d0 1", f"101 0 {'p' * 301} 1"])
    command_fails(
        "import_qrels",
        "--collection=trec",
        "--judge=nist",
        "--kind=human",
        "--add-missing-passages",
        str(path),
        message=f"{path}:2: passage id is 301 characters long, at most 300 are stored",
    )


def test_a_bad_line_keeps_the_stored_qrels(trec, tmp_path):
    run_import(trec["nist"], "--judge", "nist", "--kind", "human")
    before = qrels("nist")
    path = write_lines(tmp_path / "q.qrels", ["101 0 d0 0", "102 0 d3 0", "103 0 d5 x"])
    command_fails(
        "import_qrels",
        "--collection=trec",
        "--judge=nist",
        "--kind=human",
        str(path),
        message=f"{path}:3: grade must be an integer, got 'x'",
    )
    assert qrels("nist") == before


def test_empty_file_and_unknown_collection(trec, tmp_path):
    empty = write_lines(tmp_path / "empty.qrels", [])
    command_fails(
        "import_qrels",
        "--collection=trec",
        "--judge=nist",
        "--kind=human",
        str(empty),
        message=f"{empty}: no qrels: the file holds no lines",
    )
    command_fails(
        "import_qrels",
        "--collection=elsewhere",
        "--judge=nist",
        "--kind=human",
        str(trec["nist"]),
        message=f"{trec['nist']}: collection 'elsewhere' does not exist; import its topics first",
    )


def test_the_importer_can_be_called_directly(trec):
    result = import_qrels(
        "trec", trec["umbrela"], judge="umbrela", judge_kind="llm", model_id="gpt-4o"
    )
    assert result.counts == {"judges created": 1, "qrels": 6, "topics": 3}
