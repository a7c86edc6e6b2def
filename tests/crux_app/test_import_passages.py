"""import_passages: a TSV or JSONL passages file fills the text of text-less passages and adds
missing ones; another text for a stored passage, and bad lines, name FILE:LINE and write
nothing."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.dataio.imports.passages import import_passages
from crux_app.models import Passage

from .importer_inputs import row_counts, write_jsonl, write_lines
from .trec_inputs import PASSAGES, command_fails, trec_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def trec(tmp_path) -> dict:
    """Topics and the bm25 run imported with --add-missing-passages: six text-less passages."""
    files = trec_files(tmp_path / "trec")
    call_command("import_topics", "--collection", "trec", str(files["topics"]), stdout=StringIO())
    call_command(
        "import_run",
        "--collection=trec",
        "--name=bm25",
        "--add-missing-passages",
        str(files["bm25"]),
        stdout=StringIO(),
    )
    return files


def texts() -> dict[str, str | None]:
    rows = Passage.objects.filter(collection__name="trec")
    return {
        pid: (text if has else None)
        for pid, has, text in rows.values_list("external_id", "has_text", "text")
    }


def test_fills_text_less_passages_and_creates_missing_ones(trec):
    assert set(texts().values()) == {None}
    Passage.objects.filter(external_id="d0").update(token_count=7, token_count_tokenizer="x")
    out = StringIO()
    call_command("import_passages", "--collection", "trec", str(trec["passages"]), stdout=out)
    assert "passages created: 2" in out.getvalue()  # d6 and d7 are in no run
    assert "passage texts filled: 6" in out.getvalue()
    stored = texts()
    assert {pid: stored[pid] for pid in PASSAGES} == PASSAGES
    assert stored["d9"] is None  # named by the run, absent from the passages file
    d0 = Passage.objects.get(external_id="d0")
    assert (d0.has_text, d0.token_count, d0.token_count_tokenizer) == (True, None, "")


def test_reimport_changes_nothing(trec):
    import_passages("trec", trec["passages"])
    before = row_counts()
    result = import_passages("trec", trec["passages"])
    assert result.counts == {
        "passages created": 0,
        "passage texts filled": 0,
        "passages unchanged": 8,
    }
    assert row_counts() == before


def test_jsonl_spellings(trec, tmp_path):
    path = write_jsonl(
        tmp_path / "corpus.jsonl",
        [
            {"id": "d0", "contents": "pyserini style"},
            {"_id": "d1", "title": "t", "text": "beir style"},
            {"docid": "d2", "segment": "trec rag style"},
            {"id": 42, "contents": "integer id"},
        ],
    )
    import_passages("trec", path)
    stored = texts()
    assert (stored["d0"], stored["d1"], stored["d2"], stored["42"]) == (
        "pyserini style",
        "beir style",
        "trec rag style",
        "integer id",
    )


def test_same_text_with_other_surrounding_space_is_unchanged(trec, tmp_path):
    import_passages("trec", write_jsonl(tmp_path / "a.jsonl", [{"id": "d0", "contents": "x y\n"}]))
    result = import_passages("trec", write_lines(tmp_path / "b.tsv", ["d0\tx y"]))
    assert result.counts["passages unchanged"] == 1
    assert texts()["d0"] == "x y\n"


def test_another_text_for_a_stored_passage_is_refused(trec, tmp_path):
    import_passages("trec", trec["passages"])
    path = write_lines(tmp_path / "p.tsv", ["d9\tnow with text", "d0\tpassage text 0", "d1\tnew"])
    command_fails(
        "import_passages",
        "--collection=trec",
        str(path),
        message=f"{path}:3: passage 'd1' is already in collection 'trec' with another text",
    )
    assert texts()["d9"] is None


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        (["d0\tok", "d1"], "2: expected two tab-separated fields (pid<TAB>text)"),
        (["d0\tok", "d1\t "], "2: empty text for passage 'd1'"),
        (["d0\tok", "d0\tok"], "2: duplicate passage 'd0', first at line 1"),
        (["d 0\tok"], "1: passage id 'd 0' holds whitespace"),
        (["p" * 301 + "\tok"], "1: passage id is 301 characters long, at most 300 are stored"),
    ],
)
def test_bad_tsv_lines(trec, tmp_path, lines, reason):
    path = write_lines(tmp_path / "p.tsv", lines)
    command_fails("import_passages", "--collection=trec", str(path), message=f"{path}:{reason}")


@pytest.mark.parametrize(
    ("records", "reason"),
    [
        ([{"id": "d0", "contents": "ok"}, {"id": "d1"}], "2: missing field 'contents'"),
        ([{"contents": "no id"}], "1: missing field 'id'"),
        ([{"id": "d0", "contents": None}], "1: field 'contents' must be a string, got null"),
    ],
)
def test_bad_jsonl_lines(trec, tmp_path, records, reason):
    path = write_jsonl(tmp_path / "p.jsonl", records)
    command_fails("import_passages", "--collection=trec", str(path), message=f"{path}:{reason}")


def test_unknown_collection_and_empty_file(trec, tmp_path):
    command_fails(
        "import_passages",
        "--collection=elsewhere",
        str(trec["passages"]),
        message=f"{trec['passages']}: collection 'elsewhere' does not exist; "
        "import its topics first",
    )
    empty = write_lines(tmp_path / "empty.tsv", [""])
    command_fails(
        "import_passages",
        "--collection=trec",
        str(empty),
        message=f"{empty}: no passages: the file holds no lines",
    )
