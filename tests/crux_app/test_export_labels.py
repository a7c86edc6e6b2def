"""export_labels: the platform's qlabels/qrels JSONL, byte-identical for imported labels."""

import json

import pytest
from django.core.management import CommandError, call_command

from crux_app.dataio.export_labels import export_labels, qlabels_line, qrels_line
from crux_app.dataio.imports.crux import import_crux
from crux_app.dataio.imports.crux_labeling import import_crux_labeling
from crux_app.models import GeneratedOutput, Judge, Judgment, SubQuestion

from .importer_inputs import hub_release, read_jsonl

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("annotator", ["annotator1", "annotator2"])
@pytest.mark.parametrize("shape", ["qlabels", "qrels"])
def test_sample_round_trip_is_byte_identical(crux_sample_dir, tmp_path, annotator, shape):
    import_crux_labeling("duc", crux_sample_dir)
    out = tmp_path / f"{annotator}_{shape}.jsonl"
    call_command(
        "export_labels", "--collection=duc", f"--judge={annotator}", f"--format={shape}", out
    )
    original = crux_sample_dir / "labels" / f"{annotator}_{shape}.jsonl"
    assert out.read_bytes() == original.read_bytes()


def test_release_judge_exports_qrels_over_all_positions(tmp_path):
    import_crux("hub", hub_release(tmp_path / "crux"), split="testb", tau=3)
    judge = Judge.objects.get(kind=Judge.Kind.LLM)
    out = tmp_path / "qrels.jsonl"
    result = export_labels("hub", judge.name, "qrels", out)

    lines = read_jsonl(out)
    assert result.lines == len(lines) == 6  # passages only; report judgments are not qrels
    assert list(lines[0]) == ["id", "document", "relevances", "rationales"]
    assert lines[1] == {
        "id": "t1",
        "document": "t1:0#1",
        "relevances": {"0": 1, "1": 3, "2": 0},
        "rationales": {"0": "", "1": "", "2": ""},
    }
    assert [line["document"] for line in lines] == [
        "t1:0#0",
        "t1:0#1",
        "t1:1#2",
        "t2:0#0",
        "t2:0#1",
        "t2:1#2",
    ]


def test_machine_coverage_judgments_export_as_qlabels(crux_sample_dir, tmp_path):
    """An LLM judge has no imported CoverageLabel: coverage is the platform's own figure."""
    import_crux_labeling("duc", crux_sample_dir)
    judge = Judge.objects.create(
        name="m@v1", kind=Judge.Kind.LLM, model_id="m", prompt_version="v1"
    )
    output = GeneratedOutput.objects.get(external_id="bm25_duc04-testb-7")
    for position, rating in ((0, 1), (1, 0), (2, 1)):
        Judgment.objects.create(
            judge=judge,
            topic=output.topic,
            subquestion=SubQuestion.objects.get(topic=output.topic, position=position),
            output=output,
            task=Judgment.Task.REPORT_COVERAGE,
            rating=rating,
            rationale=f"span {position}",
        )
    out = tmp_path / "q.jsonl"
    export_labels("duc", "m@v1", "qlabels", out)
    (line,) = read_jsonl(out)
    assert line["id"] == "bm25_duc04-testb-7"
    assert line["answerability"][:4] == [1, 0, 1, -1]
    assert line["answerability"][5] == -2 and line["answerability"][8] == -2
    assert line["coverage"] == 2 / 15
    nugget = list(line["question_based_nugget"].items())
    assert nugget[0][1] == "span 0" and nugget[3][1] == ""
    assert len(nugget) == 14  # both placeholders share the key "NA"


def test_formatters_use_json_dumps_defaults():
    line = qrels_line("t", "p", [None, 2], ["", "caf\u00e9"])
    assert line == (
        '{"id": "t", "document": "p", "relevances": {"0": -1, "1": 2}, '
        '"rationales": {"0": "", "1": "caf\\u00e9"}}\n'
    )
    questions = [("Q1?", False), ("", True), ("", True)]
    line = qlabels_line("o", questions, {0: (1, "s")}, 1, {"unjudged": {"1": -2, "2": -2}})
    assert json.loads(line) == {
        "id": "o",
        "question_based_nugget": {"Q1?": "s", "NA": ""},
        "answerability": [1, -2, -2],
        "coverage": 1,
    }


def test_unknown_judge(crux_sample_dir, tmp_path):
    import_crux_labeling("duc", crux_sample_dir)
    with pytest.raises(CommandError, match="judge 'annotator9' does not exist"):
        call_command(
            "export_labels",
            "--collection=duc",
            "--judge=annotator9",
            "--format=qrels",
            tmp_path / "o",
        )


def test_unknown_collection(tmp_path):
    with pytest.raises(CommandError, match="collection 'nope' does not exist"):
        call_command(
            "export_labels", "--collection=nope", "--judge=a", "--format=qrels", tmp_path / "o"
        )
