"""The three nugget imports: what they store, their FILE:LINE errors (database unchanged), the
edit-safe re-import of nuggets, and the byte-exact round trip through the exports."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crux_app.models import Collection, GeneratedOutput, Judge, Passage, Run, RunEntry, Topic
from evaluation.nuggets.models import AnswerSentence, Nugget, NuggetAssignment
from tests.evaluation.nuggets.nugget_files import ANSWERS, ASSIGNMENTS, NUGGETS, write_lines

pytestmark = pytest.mark.django_db
NAME = "tides"


def load_all(tmp_path) -> None:
    call_command("import_nuggets", "--collection", NAME, write_lines(tmp_path / "n.jsonl", NUGGETS))
    call_command("import_answers", "--collection", NAME, write_lines(tmp_path / "a.jsonl", ANSWERS))
    assignments = write_lines(tmp_path / "s.jsonl", ASSIGNMENTS)
    call_command(
        "import_nugget_assignments",
        "--collection",
        NAME,
        "--judge",
        "gpt",
        "--kind",
        "llm",
        "--model-id",
        "gpt-4o",
        assignments,
    )


def export(command: str, *args: str) -> str:
    out = StringIO()
    call_command(command, "--collection", NAME, *args, stdout=out)
    return out.getvalue()


def test_imports_store_topics_runs_sentences_and_assignments(tmp_path):
    load_all(tmp_path)

    collection = Collection.objects.get(name=NAME)
    assert list(collection.topics.values_list("external_id", "request")) == [
        ("t1", "why do tides happen"),
        ("t2", "what is a \u00e9clair"),
    ]
    assert list(
        Nugget.objects.filter(topic__external_id="t1").values_list("position", "importance")
    ) == [(0, "vital"), (1, "vital"), (2, "okay")]
    assert sorted(collection.runs.values_list("name", flat=True)) == ["runA", "runB"]
    answer = GeneratedOutput.objects.get(external_id="runA:t1")
    assert answer.run.name == "runA" and answer.metadata == {"response_length": 14}
    assert list(answer.sentences.values_list("text", "citations")) == [
        ("The moon's gravity pulls on the oceans.", [0]),
        ("This makes bulges.", []),
        ("The sun adds a smaller pull.", [1, 2]),
    ]
    assert list(answer.context.values_list("passage__external_id", flat=True)) == ["d1", "d2", "d3"]
    assert not Passage.objects.get(external_id="d1").has_text
    # The references stand in for a ranking the run does not have.
    ranking = RunEntry.objects.filter(run__name="runA", topic__external_id="t1")
    assert list(ranking.values_list("passage__external_id", "rank")) == [
        ("d1", 1),
        ("d2", 2),
        ("d3", 3),
    ]
    judge = Judge.objects.get(name="gpt")
    assert judge.kind == "llm" and judge.model_id == "gpt-4o"
    assert NuggetAssignment.objects.filter(judge=judge).count() == 7
    assert NuggetAssignment.objects.get(
        output__external_id="runB:t1", nugget__position=1
    ).assignment == ("partial_support")


def test_exports_are_byte_identical_to_the_imported_files(tmp_path):
    load_all(tmp_path)

    assert export("export_nuggets") == (tmp_path / "n.jsonl").read_text(encoding="utf-8")
    assert export("export_answers") == (tmp_path / "a.jsonl").read_text(encoding="utf-8")
    assert export("export_nugget_assignments", "--judge", "gpt") == (
        tmp_path / "s.jsonl"
    ).read_text(encoding="utf-8")
    out = tmp_path / "again.jsonl"
    call_command("export_nuggets", "--collection", NAME, "--output", str(out))
    assert out.read_bytes() == (tmp_path / "n.jsonl").read_bytes()


def test_reimporting_an_edited_nugget_file_keeps_the_labels_of_unchanged_nuggets(tmp_path):
    load_all(tmp_path)
    edited = json.loads(json.dumps(NUGGETS))
    edited[0]["nuggets"][1]["text"] = "The sun's gravity adds a smaller tide"
    edited[0]["nuggets"][2]["importance"] = "vital"  # re-labelled, same statement
    edited[1]["nuggets"] = []
    call_command("import_nuggets", "--collection", NAME, write_lines(tmp_path / "e.jsonl", edited))

    t1 = {n.position: n for n in Nugget.objects.filter(topic__external_id="t1")}
    assert t1[0].assignments.count() == 2
    assert t1[1].text == "The sun's gravity adds a smaller tide"
    assert t1[1].assignments.count() == 0  # labels of another statement
    assert t1[2].importance == "vital" and t1[2].assignments.count() == 2
    assert not Nugget.objects.filter(topic__external_id="t2").exists()
    assert NuggetAssignment.objects.count() == 4


def test_reimporting_the_same_answers_keeps_their_assignments(tmp_path):
    load_all(tmp_path)
    call_command("import_answers", "--collection", NAME, tmp_path / "a.jsonl")
    assert NuggetAssignment.objects.count() == 7
    changed = json.loads(json.dumps(ANSWERS))
    changed[2]["answer"][0]["text"] = "Tides come from the moon."
    call_command("import_answers", "--collection", NAME, write_lines(tmp_path / "c.jsonl", changed))
    assert not NuggetAssignment.objects.filter(output__external_id="runB:t1").exists()
    assert NuggetAssignment.objects.count() == 4


@pytest.mark.parametrize(
    ("command", "lines", "message"),
    [
        ("import_nuggets", ['{"qid": "t9", "query": "q", "nuggets": []}', "{"], ":2: malformed"),
        (
            "import_nuggets",
            ['{"qid": "t9", "query": "q", "nuggets": [{"text": "x", "importance": "high"}]}'],
            ":1: nuggets[0]: 'importance' must be vital or okay, got 'high'",
        ),
        (
            "import_nuggets",
            ['{"qid": "t9", "query": "q", "nuggets": []}'] * 2,
            ":2: t9 repeats line 1",
        ),
        (
            "import_answers",
            [
                '{"run_id": "r", "topic_id": 7, "topic": "q", "references": ["d"], '
                '"answer": [{"text": "s", "citations": [1]}]}'
            ],
            ":1: answer[0]: citation 1 is not an index into the 1 references",
        ),
        (
            "import_answers",
            ['{"run_id": "r", "topic": "q", "references": [], "answer": []}'],
            ":1: missing field 'topic_id'",
        ),
    ],
)
def test_bad_lines_name_file_and_line_and_write_nothing(tmp_path, command, lines, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as raised:
        call_command(command, "--collection", "fresh", path)
    assert str(raised.value).startswith(str(path))
    assert message in str(raised.value)
    assert not Collection.objects.exists() and not Topic.objects.exists()


def test_an_unknown_nugget_in_the_assignments_is_an_error_at_its_line(tmp_path):
    load_all(tmp_path)
    bad = json.loads(json.dumps(ASSIGNMENTS[:2]))
    bad[1]["nuggets"][0]["text"] = "A biscuit"
    path = write_lines(tmp_path / "bad.jsonl", bad)
    with pytest.raises(CommandError, match=r"bad.jsonl:2: nuggets\[0\]: topic 't2' has no nugget"):
        call_command(
            "import_nugget_assignments",
            "--collection",
            NAME,
            "--judge",
            "amy",
            "--kind",
            "human",
            path,
        )
    assert not Judge.objects.filter(name="amy").exists()  # atomic: the judge went too
    assert NuggetAssignment.objects.count() == 7


def test_assignments_need_the_answers_first(tmp_path):
    call_command("import_nuggets", "--collection", NAME, write_lines(tmp_path / "n.jsonl", NUGGETS))
    path = write_lines(tmp_path / "s.jsonl", ASSIGNMENTS)
    with pytest.raises(CommandError, match="s.jsonl:1: run 'runA' has no answer to topic 't1'"):
        call_command(
            "import_nugget_assignments",
            "--collection",
            NAME,
            "--judge",
            "amy",
            "--kind",
            "human",
            path,
        )
    assert not Run.objects.exists() and not AnswerSentence.objects.exists()


def test_nugget_ratings_import_and_its_errors(tmp_path):
    load_all(tmp_path)
    good = tmp_path / "r.jsonl"
    good.write_text(
        '{"qid": "t1", "docid": "d1", "nugget": "The sun also raises tides", "rating": 4}\n'
        '{"qid": "t1", "docid": "d7", "nugget": "The sun also raises tides", "rating": 0}\n',
        encoding="utf-8",
    )
    args = ("--collection", NAME, "--judge", "rater", "--kind", "human")
    call_command("import_nugget_ratings", *args, good, stdout=StringIO())
    sun = Nugget.objects.get(topic__external_id="t1", position=1)
    assert sorted(sun.passage_ratings.values_list("passage__external_id", "rating")) == [
        ("d1", 4),
        ("d7", 0),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"qid": "t1", "docid": "d1", "nugget": "The sun also raises tides", "rating": 6}\n',
        encoding="utf-8",
    )
    with pytest.raises(CommandError, match=r"bad.jsonl:1: field 'rating' must lie in 0..5"):
        call_command("import_nugget_ratings", *args, bad)
    bad.write_text('{"qid": "t1", "docid": "d1", "nugget": "Wind", "rating": 2}\n')
    with pytest.raises(CommandError, match=r"bad.jsonl:1: topic 't1' has no nugget 'Wind'"):
        call_command("import_nugget_ratings", *args, bad)
    assert sun.passage_ratings.count() == 2
