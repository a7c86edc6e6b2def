"""import_crux on a small release in the CRUX hub layout, and on spoiled copies of it."""

import pytest
from django.core.management import CommandError, call_command

from crux_app.dataio.imports.crux import (
    RELEASE_JUDGE_MODEL,
    RELEASE_PROMPT_VERSION,
    import_crux,
)
from crux_app.models import (
    GeneratedOutput,
    Judge,
    Judgment,
    PassageQrel,
    SubQuestion,
    SubtopicQrel,
    Topic,
)

from .importer_inputs import hub_release, read_jsonl, row_counts, write_jsonl, write_lines

pytestmark = pytest.mark.django_db


def test_release_import(tmp_path):
    root = hub_release(tmp_path / "crux")
    result = import_crux("hub", root, split="testb", tau=3)

    assert result.counts == {
        "topics": 2,
        "sub-questions": 6,
        "oracle reports": 2,
        "passages": 6,
        "passage judgments": 18,
        "report judgments": 6,
        "passage qrels": 6,
        "subtopic qrels": 6,
    }
    topic = Topic.objects.get(external_id="t2")
    assert topic.request == "Report on t2"  # topics.jsonl wins over the TSV
    assert topic.reference_report == "t2 report"
    placeholder = SubQuestion.objects.get(topic=topic, position=1)
    assert placeholder.is_placeholder and placeholder.text == ""

    judge = Judge.objects.get(kind=Judge.Kind.LLM)
    assert (judge.model_id, judge.prompt_version) == (RELEASE_JUDGE_MODEL, RELEASE_PROMPT_VERSION)
    rating = Judgment.objects.get(
        judge=judge, passage__external_id="t1:0#1", subquestion__position=1
    )
    assert (rating.rating, rating.task) == (3, Judgment.Task.PASSAGE_RATING)
    report = GeneratedOutput.objects.get(external_id="t1:report")
    assert (report.system, report.kind, report.text) == ("oracle-report", "report", "t1 report")
    ratings = report.judgments.order_by("subquestion__position").values_list("rating", flat=True)
    assert list(ratings) == [5, 4, 3]

    qrel = PassageQrel.objects.get(passage__external_id="t1:0#1")
    assert (qrel.grade, qrel.source) == (2, "crux_tau3")
    relevant = SubtopicQrel.objects.get(passage__external_id="t1:0#1")
    assert relevant.relevant and relevant.subquestion.position == 1


def test_ranking_folder_given_directly_and_alternative_names(tmp_path):
    root = hub_release(tmp_path / "crux", tau=2)
    folder = root / "ranking_2"
    (folder / "testb_oracle-passages_judgements.jsonl").rename(folder / "testb_judgements.jsonl")
    (folder / "testb_qrels_pr.txt").rename(folder / "testb_qrels_oracle_context_pr.txt")
    result = import_crux("hub", folder, split="testb", tau=2)
    assert result.counts["passage judgments"] == 18
    assert PassageQrel.objects.filter(source="crux_tau2").count() == 6


def test_reimport_creates_no_duplicates(tmp_path):
    root = hub_release(tmp_path / "crux")
    import_crux("hub", root, split="testb", tau=3)
    before = row_counts()
    import_crux("hub", root, split="testb", tau=3)
    assert row_counts() == before


def test_command_prints_counts(tmp_path, capsys):
    root = hub_release(tmp_path / "crux")
    call_command("import_crux", "--collection=hub", "--split=testb", "--tau=3", str(root))
    assert "passage judgments: 18" in capsys.readouterr().out


# ---- Bad input ---------------------------------------------------------------------------


def _fails(root, message, tau=3):
    before = row_counts()
    with pytest.raises(CommandError) as error:
        call_command("import_crux", "--collection=hub", "--split=testb", f"--tau={tau}", str(root))
    assert str(error.value) == message
    assert row_counts() == before


def test_rating_vector_of_wrong_length(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = root / "ranking_3" / "testb_oracle-passages_judgements.jsonl"
    lines = read_jsonl(path)
    lines[4]["rating"] = [1, 2]
    write_jsonl(path, lines)
    _fails(root, f"{path}:5: rating has 2 values but topic 't2' has 3 sub-questions")


def test_rating_out_of_range(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = root / "ranking_3" / "testb_oracle-passages_judgements.jsonl"
    lines = read_jsonl(path)
    lines[0]["rating"] = [1, 9, 0]
    write_jsonl(path, lines)
    _fails(root, f"{path}:1: rating[1] must be 0-5, got 9")


def test_judged_passage_missing_from_passages(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = root / "ranking_3" / "testb_oracle-passages_judgements.jsonl"
    lines = read_jsonl(path)
    lines[2]["pid"] = "t1:7#9"
    write_jsonl(path, lines)
    _fails(
        root,
        f"{path}:3: passage 't1:7#9' is neither in passages/*.jsonl nor already in "
        "collection 'hub'",
    )


def test_qrel_on_unknown_passage(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = write_lines(root / "ranking_3" / "testb_qrels_pr.txt", ["t1 0 t1:0#0 3", "t1 0 nope 1"])
    _fails(
        root,
        f"{path}:2: passage 'nope' is neither in passages/*.jsonl nor already in collection 'hub'",
    )


def test_duplicate_judgement(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = root / "ranking_3" / "testb_oracle-passages_judgements.jsonl"
    lines = read_jsonl(path)
    write_jsonl(path, [*lines, lines[1]])
    _fails(root, f"{path}:9: duplicate judgement of passage 't1:0#1' for topic 't1'")


def test_judgement_of_unknown_topic(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = root / "ranking_3" / "testb_oracle-passages_judgements.jsonl"
    lines = read_jsonl(path)
    lines[0]["example_id"] = "t9"
    write_jsonl(path, lines)
    _fails(root, f"{path}:1: unknown topic 't9'")


def test_malformed_questions_file(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = root / "ranking_3" / "testb_questions.jsonl"
    path.write_text('{"example_id": "t1", "questions": ["a"]}\n{"example_id": "t2", \n')
    _fails(
        root,
        f"{path}:2: malformed JSON: Expecting property name enclosed in double quotes (column 23)",
    )


def test_questions_of_wrong_type(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = write_jsonl(
        root / "ranking_3" / "testb_questions.jsonl",
        [{"example_id": "t1", "questions": "What happened?"}],
    )
    _fails(root, f"{path}:1: field 'questions' must be a list, got a string")


def test_passage_line_missing_contents(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = write_jsonl(root / "passages" / "corpus.jsonl", [{"id": "t1:0#0"}])
    _fails(root, f"{path}:1: missing field 'contents'")


def test_div_qrels_index_out_of_range(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = write_lines(root / "ranking_3" / "testb_div_qrels_pr.txt", ["t1 4 t1:0#0 1"])
    _fails(root, f"{path}:1: subquestion_index 4 is out of range 1-3 for topic 't1'")


def test_qrels_grade_that_is_not_a_number(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = write_lines(root / "ranking_3" / "testb_qrels_pr.txt", ["t1 0 t1:0#0 high"])
    _fails(root, f"{path}:1: grade must be an integer, got 'high'")


def test_folder_without_release_files(tmp_path):
    (tmp_path / "empty").mkdir()
    _fails(
        tmp_path / "empty",
        f"{tmp_path / 'empty'}: no ranking_3/ folder and no testb_* release files here",
    )


def test_ranking_folder_of_another_threshold(tmp_path):
    root = hub_release(tmp_path / "crux", tau=2)
    _fails(
        root / "ranking_2",
        f"{root / 'ranking_2'}: this is the ranking_2 folder but tau is 4",
        tau=4,
    )


def test_a_nul_character_in_a_topics_tsv_names_file_and_line(tmp_path):
    root = hub_release(tmp_path / "crux")
    tsv = root / "ranking_3" / "testb_topics.tsv"
    write_lines(tsv, ["t1\tReport on event one", "t2\tReport on\x00two"])
    _fails(
        root,
        f"{root}/ranking_3/testb_topics.tsv:2: the line holds a NUL character (\\u0000), "
        "which PostgreSQL text cannot store",
    )


def test_a_nul_character_in_a_judgements_line_names_file_and_line(tmp_path):
    root = hub_release(tmp_path / "crux")
    path = root / "ranking_3" / "testb_oracle-passages_judgements.jsonl"
    lines = read_jsonl(path)
    lines[2]["pid"] = "t1:0\u0000#0"
    write_jsonl(path, lines)
    _fails(
        root,
        f"{root}/ranking_3/testb_oracle-passages_judgements.jsonl:3: a JSON string holds a NUL "
        "character (\\u0000), which PostgreSQL text cannot store",
    )


def test_deeply_nested_passages_line_names_file_and_line(tmp_path):
    root = hub_release(tmp_path / "crux")
    with (root / "passages" / "corpus.jsonl").open("a") as handle:
        handle.write('{"id": "x", "contents": ' + "[" * 50_000 + "]" * 50_000 + "}\n")
    _fails(root, f"{root}/passages/corpus.jsonl:7: JSON nested deeper than 64 levels")
