"""import_qa: short-answer QA records with their contexts."""

import json

import pytest
from django.core.management import CommandError, call_command

from crux_app.dataio.imports.qa import import_qa
from crux_app.models import Collection, Passage, PassageQrel, Run, SubQuestion, Topic

from .importer_inputs import row_counts, write_jsonl

pytestmark = pytest.mark.django_db

RECORDS = [
    {
        "id": "q1",
        "question": "Who wrote Hamlet?",
        "answers": ["William Shakespeare", "Shakespeare"],
        "contexts": [
            {"id": "p1", "text": "Hamlet is a tragedy by Shakespeare.", "gold": True},
            {"id": "p2", "text": "Macbeth is another play."},
        ],
    },
    {
        "id": "q2",
        "question": "Where is Hamlet set?",
        "answers": ["Denmark"],
        "contexts": [
            {"id": "p3", "text": "It is set in Denmark.", "gold": True},
            {"id": "p1", "text": "Hamlet is a tragedy by Shakespeare.", "gold": False},
            {"id": "p4", "text": "Elsinore is a castle.", "gold": True},
        ],
    },
]


def test_qa_import(tmp_path):
    path = write_jsonl(tmp_path / "qa.jsonl", RECORDS)
    result = import_qa("nq", path)

    assert result.counts == {
        "topics": 2,
        "sub-questions": 2,
        "passages": 4,
        "gold qrels": 3,
        "runs": 1,
        "run entries": 5,
    }
    assert Collection.objects.get(name="nq").kind == Collection.Kind.QA
    topic = Topic.objects.get(external_id="q1")
    assert (topic.request, topic.gold_answers) == (
        "Who wrote Hamlet?",
        ["William Shakespeare", "Shakespeare"],
    )
    only = SubQuestion.objects.get(topic=topic)
    assert (only.position, only.text) == (0, "Who wrote Hamlet?")
    gold = PassageQrel.objects.filter(source="qa_gold", grade=1)
    assert sorted(gold.values_list("topic__external_id", "passage__external_id")) == [
        ("q1", "p1"),
        ("q2", "p3"),
        ("q2", "p4"),
    ]
    entries = Run.objects.get(name="contexts").entries.filter(topic__external_id="q2")
    ranked = entries.order_by("rank").values_list("passage__external_id", "rank", "score")
    assert list(ranked) == [("p3", 1, 1.0), ("p1", 2, 0.5), ("p4", 3, pytest.approx(1 / 3))]
    assert Passage.objects.get(external_id="p1").text == "Hamlet is a tragedy by Shakespeare."


def test_run_name_option_and_idempotent_reimport(tmp_path):
    path = write_jsonl(tmp_path / "qa.jsonl", RECORDS)
    call_command("import_qa", "--collection=nq", "--run=top-k", str(path))
    before = row_counts()
    call_command("import_qa", "--collection=nq", "--run=top-k", str(path))
    assert row_counts() == before
    assert Run.objects.get().name == "top-k"


def _fails(path, message):
    before = row_counts()
    with pytest.raises(CommandError) as error:
        call_command("import_qa", "--collection=nq", str(path))
    assert str(error.value) == message
    assert row_counts() == before


def test_same_passage_id_with_another_text(tmp_path):
    records = json.loads(json.dumps(RECORDS))
    records[1]["contexts"][1]["text"] = "Hamlet, Prince of Denmark."
    path = write_jsonl(tmp_path / "qa.jsonl", records)
    _fails(path, f"{path}:2: passage 'p1' has another text than at line 1")


def test_passage_stored_with_another_text(tmp_path):
    import_qa("nq", write_jsonl(tmp_path / "first.jsonl", RECORDS[:1]))
    records = json.loads(json.dumps(RECORDS[1:]))
    records[0]["contexts"][1]["text"] = "Hamlet, Prince of Denmark."
    path = write_jsonl(tmp_path / "qa.jsonl", records)
    _fails(path, f"{path}:1: passage 'p1' is already in collection 'nq' with another text")


def test_duplicate_id(tmp_path):
    path = write_jsonl(tmp_path / "qa.jsonl", [RECORDS[0], RECORDS[1], RECORDS[0]])
    _fails(path, f"{path}:3: duplicate id 'q1', first at line 1")


def test_missing_field(tmp_path):
    path = write_jsonl(tmp_path / "qa.jsonl", [{"id": "q1", "question": "Who?", "contexts": []}])
    _fails(path, f"{path}:1: missing field 'answers'")


def test_wrong_type_of_answers(tmp_path):
    path = write_jsonl(
        tmp_path / "qa.jsonl", [{"id": "q1", "question": "Who?", "answers": "him", "contexts": []}]
    )
    _fails(path, f"{path}:1: field 'answers' must be a list, got a string")


def test_wrong_type_of_gold_flag(tmp_path):
    record = {
        "id": "q1",
        "question": "Who?",
        "answers": ["him"],
        "contexts": [{"id": "p1", "text": "t", "gold": "yes"}],
    }
    path = write_jsonl(tmp_path / "qa.jsonl", [record])
    _fails(path, f"{path}:1: contexts[0]: field 'gold' must be a boolean, got a string")


def test_context_without_text(tmp_path):
    record = {"id": "q1", "question": "Who?", "answers": [], "contexts": [{"id": "p1"}]}
    path = write_jsonl(tmp_path / "qa.jsonl", [record])
    _fails(path, f"{path}:1: contexts[0]: missing field 'text'")


def test_malformed_json(tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps(RECORDS[0]) + "\n\n{'id': 'q2'}\n")
    _fails(
        path,
        f"{path}:3: malformed JSON: Expecting property name enclosed in double quotes (column 2)",
    )


def test_line_that_is_not_an_object(tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_text('["q1", "Who?"]\n')
    _fails(path, f"{path}:1: expected a JSON object, got a list")


def test_a_nul_character_names_its_line_and_writes_nothing(tmp_path):
    records = json.loads(json.dumps(RECORDS))
    records[1]["contexts"][0]["text"] = "It is set in\u0000Denmark."
    path = write_jsonl(tmp_path / "qa.jsonl", records)
    assert "\\u0000" in path.read_text()
    _fails(
        path,
        f"{path}:2: a JSON string holds a NUL character (\\u0000), which PostgreSQL text "
        "cannot store",
    )
    assert not Collection.objects.filter(name="nq").exists()


def test_a_nul_character_in_a_key_is_refused_too(tmp_path):
    path = write_jsonl(tmp_path / "qa.jsonl", [{**RECORDS[0], "note\u0000": 1}])
    _fails(
        path,
        f"{path}:1: a JSON string holds a NUL character (\\u0000), which PostgreSQL text "
        "cannot store",
    )


def test_an_escaped_backslash_before_u0000_is_plain_text(tmp_path):
    records = json.loads(json.dumps(RECORDS[:1]))
    records[0]["question"] = "What does \\u0000 mean?"  # a backslash, then 'u0000'
    import_qa("nq", write_jsonl(tmp_path / "qa.jsonl", records))
    assert Topic.objects.get().request == "What does \\u0000 mean?"


def test_a_raw_nul_byte_names_its_line(tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_bytes(json.dumps(RECORDS[0]).encode() + b"\n" + b'{"id": "q\x002"}\n')
    _fails(
        path,
        f"{path}:2: the line holds a NUL character (\\u0000), which PostgreSQL text cannot store",
    )


def test_a_lone_surrogate_names_its_line(tmp_path):
    path = tmp_path / "qa.jsonl"
    line = json.dumps({**RECORDS[0], "question": "Who\ud800?"})
    path.write_text(json.dumps(RECORDS[1]) + "\n" + line + "\n")
    _fails(
        path,
        f"{path}:2: a JSON string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is "
        "not valid text",
    )


def test_a_surrogate_pair_is_one_character(tmp_path):
    records = json.loads(json.dumps(RECORDS[:1]))
    records[0]["question"] = "Who wrote 😀?"
    import_qa("nq", write_jsonl(tmp_path / "qa.jsonl", records))  # json.dumps escapes it
    assert Topic.objects.get().request == "Who wrote 😀?"


@pytest.mark.parametrize("depth", [65, 100_000])
def test_deeply_nested_json_names_its_line_and_writes_nothing(tmp_path, depth):
    path = tmp_path / "qa.jsonl"
    nested = '{"id": "q2", "extra": ' + "[" * depth + "]" * depth + "}"
    path.write_text(json.dumps(RECORDS[0]) + "\n" + nested + "\n")
    _fails(path, f"{path}:2: JSON nested deeper than 64 levels")


def test_nesting_within_the_limit_is_read(tmp_path):
    records = json.loads(json.dumps(RECORDS[:1]))
    records[0]["extra"] = json.loads("[" * 63 + "]" * 63)
    import_qa("nq", write_jsonl(tmp_path / "qa.jsonl", records))
    assert Topic.objects.count() == 1


def test_brackets_inside_strings_are_not_nesting(tmp_path):
    records = json.loads(json.dumps(RECORDS[:1]))
    records[0]["question"] = "[{" * 200 + '"\\'
    import_qa("nq", write_jsonl(tmp_path / "qa.jsonl", records))
    assert Topic.objects.get().request == "[{" * 200 + '"\\'


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_an_empty_file_is_an_error_not_an_empty_collection(tmp_path, content):
    path = tmp_path / "qa.jsonl"
    path.write_text(content)
    _fails(path, f"{path}: no QA records: the file holds no JSON lines")
    assert not Collection.objects.filter(name="nq").exists()
