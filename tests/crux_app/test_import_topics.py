"""import_topics: TREC topics from a TSV or JSONL file create the collection and its topics;
a bad line names FILE:LINE and nothing is written."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.dataio.imports.topics import import_topics
from crux_app.models import Collection, Topic

from .importer_inputs import row_counts, write_jsonl, write_lines
from .trec_inputs import TOPICS, command_fails, topics_jsonl, trec_files

pytestmark = pytest.mark.django_db


def stored_topics(collection: str = "trec") -> dict[str, str]:
    rows = Topic.objects.filter(collection__name=collection)
    return dict(rows.values_list("external_id", "request"))


def test_tsv_topics_create_the_collection(tmp_path):
    path = trec_files(tmp_path)["topics"]
    out = StringIO()
    call_command("import_topics", "--collection", "trec", str(path), stdout=out)
    assert stored_topics() == TOPICS
    assert Collection.objects.get(name="trec").kind == Collection.Kind.REPORT
    assert "topics import into 'trec' (new collection): 3 topics" in out.getvalue()


def test_jsonl_topics_with_integer_and_beir_ids(tmp_path):
    path = write_jsonl(
        tmp_path / "queries.jsonl",
        [{"id": 101, "text": "black bear attacks"}, {"_id": "102", "text": "wind power"}],
    )
    result = import_topics("trec", path)
    assert result.counts == {"topics": 2}
    assert stored_topics() == {"101": "black bear attacks", "102": "wind power"}


def test_reimport_is_idempotent_and_updates_texts(tmp_path):
    path = topics_jsonl(tmp_path / "topics.jsonl")
    import_topics("trec", path)
    before = row_counts()
    import_topics("trec", path)
    assert row_counts() == before

    changed = write_lines(tmp_path / "new.tsv", ["101\tblack bear attacks in canada"])
    import_topics("trec", changed)
    assert stored_topics()["101"] == "black bear attacks in canada"
    assert len(stored_topics()) == 3  # topics the file does not name are kept


def test_tsv_text_may_hold_tabs_and_spaces(tmp_path):
    path = write_lines(tmp_path / "t.tsv", ["7\tA topic\twith a tab  "])
    import_topics("trec", path)
    assert stored_topics() == {"7": "A topic\twith a tab"}


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        (["101\tok", "102"], "2: expected two tab-separated fields (qid<TAB>text)"),
        (["101\tok", "102\t   "], "2: empty text for topic '102'"),
        (["101\tok", "101\tagain"], "2: duplicate topic '101', first at line 1"),
        (["101 a\ttext"], "1: topic id '101 a' holds whitespace"),
        (["x" * 201 + "\ttext"], "1: topic id is 201 characters long, at most 200 are stored"),
    ],
)
def test_bad_tsv_lines(tmp_path, lines, reason):
    path = write_lines(tmp_path / "t.tsv", lines)
    command_fails("import_topics", "--collection", "trec", str(path), message=f"{path}:{reason}")
    assert not Collection.objects.exists()


@pytest.mark.parametrize(
    ("records", "reason"),
    [
        ([{"id": "1", "text": "ok"}, {"id": "2"}], "2: missing field 'text'"),
        ([{"text": "no id"}], "1: missing field 'id'"),
        ([{"id": "1", "text": 5}], "1: field 'text' must be a string, got an integer"),
        ([{"id": ["1"], "text": "t"}], "1: field 'id' must be a string or an integer, got a list"),
        (
            [{"id": "1", "text": "t"}, ["not", "an", "object"]],
            "2: expected a JSON object, got a list",
        ),
        (
            [{"id": "1", "text": "a\u0000b"}],
            "1: a JSON string holds a NUL character (\\u0000), which PostgreSQL text cannot store",
        ),
    ],
)
def test_bad_jsonl_lines(tmp_path, records, reason):
    path = write_jsonl(tmp_path / "t.jsonl", records)
    command_fails("import_topics", "--collection", "trec", str(path), message=f"{path}:{reason}")


def test_malformed_json_line(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", ['{"id": "1", "text": "ok"}', '{"id": "2", "text"'])
    command_fails(
        "import_topics",
        "--collection",
        "trec",
        str(path),
        message=f"{path}:2: malformed JSON: Expecting ':' delimiter (column 20)",
    )


def test_a_bad_line_after_good_ones_writes_nothing_into_an_existing_collection(tmp_path):
    import_topics("trec", topics_jsonl(tmp_path / "topics.jsonl"))
    path = write_lines(tmp_path / "t.tsv", ["101\tchanged text", "104\tnew", "105"])
    command_fails(
        "import_topics",
        "--collection",
        "trec",
        str(path),
        message=f"{path}:3: expected two tab-separated fields (qid<TAB>text)",
    )
    assert stored_topics() == TOPICS


def test_empty_file_missing_file_and_bad_bytes(tmp_path):
    empty = write_lines(tmp_path / "empty.tsv", ["", "  "])
    command_fails(
        "import_topics",
        "--collection",
        "trec",
        str(empty),
        message=f"{empty}: no topics: the file holds no lines",
    )
    missing = tmp_path / "nowhere.tsv"
    command_fails(
        "import_topics", "--collection", "trec", str(missing), message=f"{missing}: not a file"
    )
    latin = tmp_path / "latin.tsv"
    latin.write_bytes(b"1\tcaf\xe9\n")
    command_fails(
        "import_topics",
        "--collection",
        "trec",
        str(latin),
        message=f"{latin}:1: not UTF-8 text (invalid continuation byte)",
    )
