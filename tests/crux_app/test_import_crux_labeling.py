"""import_crux_labeling on the platform-layout test data, a ten-topic release, spoiled inputs."""

import json

import pytest
from django.core.management import call_command

from crux_app.dataio.imports.crux_labeling import import_crux_labeling
from crux_app.models import (
    CoverageLabel,
    GeneratedOutput,
    Judge,
    Judgment,
    Passage,
    Run,
    SubQuestion,
)

from .importer_inputs import (
    copy_platform,
    read_jsonl,
    row_counts,
    write_jsonl,
    write_lines,
)
from .importer_inputs import labeling_import_fails as _fails

pytestmark = pytest.mark.django_db


def test_sample_import_builds_topics_outputs_runs_and_labels(crux_sample_dir):
    result = import_crux_labeling("duc", crux_sample_dir)

    assert result.counts["topics"] == 2
    assert result.counts["sub-questions"] == 30
    placeholders = SubQuestion.objects.filter(is_placeholder=True)
    assert sorted(placeholders.values_list("topic__external_id", "position")) == [
        ("duc04-testb-7", 5),
        ("duc04-testb-7", 8),
    ]
    assert set(placeholders.values_list("text", flat=True)) == {""}
    # oracle.jsonl's six outputs, plus the two dr_rankfirst.jsonl lines that differ from them.
    outputs = dict(GeneratedOutput.objects.values_list("external_id", "system"))
    assert outputs == {
        "duc04-testb-3": "oracle",
        "duc04-testb-7": "oracle",
        "bm25_duc04-testb-3": "bm25",
        "bm25_duc04-testb-7": "bm25",
        "dr_rankfirst_duc04-testb-3": "dr_rankfirst",
        "dr_rankfirst_duc04-testb-7": "dr_rankfirst",
        "dr_rankfirst.jsonl:duc04-testb-3": "dr_rankfirst",
        "dr_rankfirst.jsonl:duc04-testb-7": "dr_rankfirst",
    }
    assert result.counts["distinct outputs from per-system files"] == 2
    assert any("dr_rankfirst.jsonl:duc04-testb-3" in w for w in result.warnings)
    oracle = GeneratedOutput.objects.get(external_id="duc04-testb-3")
    assert oracle.topic.reference_report.startswith("Insurance premiums for cargo")
    assert list(oracle.context.values_list("passage__external_id", flat=True)) == [
        "duc04-testb-3:3#10",
        "duc04-testb-3:9#27",
        "duc04-testb-3:2#6",
        "duc04-testb-3:4#12",
        "duc04-testb-3:8#24",
    ]
    # Context and run passages of the pooled corpus have no document file.
    textless = set(Passage.objects.filter(has_text=False).values_list("external_id", flat=True))
    assert "multi_news-train-13278:3#9" in textless
    assert "duc04-testb-11:6#19" in textless
    assert result.counts["passages without text"] == len(textless) == 8
    assert Passage.objects.filter(has_text=True).count() == 78
    assert sorted(Run.objects.values_list("name", flat=True)) == ["bm25", "dr_rankfirst", "oracle"]
    assert Run.objects.get(name="bm25").entries.count() == 9


def test_sample_labels_become_human_judgments(crux_sample_dir):
    import_crux_labeling("duc", crux_sample_dir)

    annotator = Judge.objects.get(name="annotator1")
    assert annotator.kind == Judge.Kind.HUMAN and annotator.user is None
    rating = Judgment.objects.get(
        judge=annotator,
        passage__external_id="duc04-testb-3:3#10",
        subquestion__position=11,
    )
    assert rating.rating == 5
    assert rating.rationale.startswith("The inquiry recommended that divers")
    # -1 (not asked) is not stored: two ratings per passage line in annotator1's sample.
    assert Judgment.objects.filter(judge=annotator, task="passage_rating").count() == 18
    # annotator2 rated a placeholder position; it is kept for a lossless export.
    kept = Judgment.objects.get(
        judge__name="annotator2", passage__external_id="duc04-testb-7:14#43", rating=0
    ).subquestion
    assert kept.is_placeholder and kept.position == 5

    coverage = Judgment.objects.filter(
        judge=annotator, output__external_id="duc04-testb-7", task="report_coverage"
    )
    assert coverage.count() == 13  # fifteen positions, two of them -2
    label = CoverageLabel.objects.get(judge=annotator, output__external_id="duc04-testb-7")
    # The file's figure (9 of 15) is kept verbatim, not recomputed over 13 questions.
    assert label.coverage == 0.6


def test_reimport_creates_no_duplicates(crux_sample_dir):
    import_crux_labeling("duc", crux_sample_dir)
    before = row_counts()
    import_crux_labeling("duc", crux_sample_dir)
    assert row_counts() == before


def test_command_prints_counts(crux_sample_dir, capsys):
    call_command("import_crux_labeling", "--collection", "duc", str(crux_sample_dir))
    out = capsys.readouterr().out
    assert "2 topics" in out
    assert "human passage judgments: 35" in out


def _ten_topic_release(tmp_path, sample):
    """The sample's formats over ten topics, with the variants the full release has."""
    folder = tmp_path / "ten"
    base = read_jsonl(sample / "oracle.jsonl")[1]  # duc04-testb-7: nulls at 5 and 8
    oracle, bm25, runs, qlabels = [], [], [], []
    for t in range(10):
        qid = f"duc04-testb-{40 + t}"
        questions = [f"Question {i} of {qid}?" for i in range(15)]
        questions[t % 15] = None  # placeholders at different places, position 0 included
        questions[(t + 11) % 15] = None
        docids = [f"{qid}:{d}#{d}" for d in range(3)]
        line = {**base, "qid": qid, "topic": f"Topic {t}", "questions": questions}
        line.update(docids=docids, k=3, report=f"ref {t}", response=f"oracle response {t}")
        oracle.append(line)
        bm25_line = {**line, "qid": f"bm25_{qid}", "response": f"bm25 response {t}"}
        oracle.append(bm25_line)
        # bm25.jsonl as the README describes it: k a string, docids a Python-list string,
        # questions a string holding the list.
        bm25.append(
            {
                **bm25_line,
                "qid": qid,
                "k": "3",
                "docids": str(docids),
                "questions": json.dumps(questions),
            }
        )
        runs += [f"{qid} Q0 {d} 4 0.25 human_eval_bm25" for d in docids]
        answerability = [-2 if q is None else i % 2 for i, q in enumerate(questions)]
        nugget = {}
        for i, q in enumerate(questions):
            nugget["NA" if q is None else q] = "" if q is None else f"span {i}"
        qlabels.append(
            {
                "id": f"bm25_{qid}",
                "question_based_nugget": nugget,
                "answerability": answerability,
                "coverage": sum(a == 1 for a in answerability) / 15,
            }
        )
        for d in docids:
            write_lines(folder / "documents" / d, [json.dumps({"id": d, "contents": f"text {d}"})])
    write_jsonl(folder / "oracle.jsonl", oracle)
    write_jsonl(folder / "bm25.jsonl", bm25)
    write_lines(folder / "bm25.run", runs)
    write_jsonl(folder / "labels" / "annotator3_qlabels.jsonl", qlabels)
    return folder


def test_ten_topic_release_round_trips(tmp_path, crux_sample_dir):
    folder = _ten_topic_release(tmp_path, crux_sample_dir)
    result = import_crux_labeling("full", folder)

    assert result.counts["topics"] == 10
    assert result.counts["outputs"] == 20  # bm25.jsonl lines equal oracle.jsonl's bm25_ ones
    assert result.counts["outputs equal to a stored one"] == 10
    first = SubQuestion.objects.get(topic__external_id="duc04-testb-40", position=0)
    assert first.is_placeholder
    out = tmp_path / "qlabels.jsonl"
    call_command(
        "export_labels", "--collection=full", "--judge=annotator3", "--format=qlabels", out
    )
    original = folder / "labels" / "annotator3_qlabels.jsonl"
    assert out.read_bytes() == original.read_bytes()


# ---- Bad input: message names the file and line; the database is unchanged ----------------


def test_malformed_json_line(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    with (folder / "bm25.jsonl").open("a") as handle:
        handle.write('{"qid": "duc04-testb-9", "topic": \n')
    _fails(folder, f"{folder}/bm25.jsonl:3: malformed JSON: Expecting value (column 36)")


def test_missing_field(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "dr_rankfirst.jsonl")
    del lines[1]["response"]
    write_jsonl(folder / "dr_rankfirst.jsonl", lines)
    _fails(folder, f"{folder}/dr_rankfirst.jsonl:2: missing field 'response'")


def test_wrong_type(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "oracle.jsonl")
    lines[3]["docids"] = 4
    write_jsonl(folder / "oracle.jsonl", lines)
    _fails(
        folder,
        f"{folder}/oracle.jsonl:4: field 'docids' must be a list or a string, got an integer",
    )


def test_unparseable_docids_string(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "bm25.jsonl")
    lines[0]["docids"] = "['a', 'b'"
    write_jsonl(folder / "bm25.jsonl", lines)
    _fails(folder, f"{folder}/bm25.jsonl:1: field 'docids' is a string that holds no list")


def test_duplicate_output_id(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "oracle.jsonl")
    write_jsonl(folder / "oracle.jsonl", [*lines, lines[2]])
    _fails(folder, f"{folder}/oracle.jsonl:7: duplicate output id 'bm25_duc04-testb-3'")


def test_questions_that_disagree_between_files(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "bm25.jsonl")
    lines[1]["questions"] = lines[1]["questions"][:-1]
    write_jsonl(folder / "bm25.jsonl", lines)
    _fails(
        folder,
        f"{folder}/bm25.jsonl:2: questions of topic 'duc04-testb-7' differ from "
        f"{folder}/oracle.jsonl:2",
    )


def test_run_line_with_missing_field(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    with (folder / "oracle.run").open("a") as handle:
        handle.write("duc04-testb-3 Q0 duc04-testb-3:0#0 4 0.25\n")
    _fails(
        folder,
        f"{folder}/oracle.run:10: expected 6 whitespace-separated fields "
        "(qid Q0 pid rank score tag), got 5",
    )


def test_qrels_label_on_unknown_topic(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "labels" / "annotator2_qrels.jsonl")
    lines[4]["id"] = "duc04-testb-99"
    write_jsonl(folder / "labels" / "annotator2_qrels.jsonl", lines)
    _fails(folder, f"{folder}/labels/annotator2_qrels.jsonl:5: unknown topic 'duc04-testb-99'")


def test_qrels_label_with_wrong_positions(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "labels" / "annotator1_qrels.jsonl")
    del lines[0]["relevances"]["14"]
    write_jsonl(folder / "labels" / "annotator1_qrels.jsonl", lines)
    _fails(
        folder,
        f"{folder}/labels/annotator1_qrels.jsonl:1: relevances must have the keys '0'..'14', "
        "one per sub-question of topic 'duc04-testb-3'; got 14 keys",
    )


def test_qrels_rating_out_of_range(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "labels" / "annotator1_qrels.jsonl")
    lines[2]["relevances"]["3"] = 7
    write_jsonl(folder / "labels" / "annotator1_qrels.jsonl", lines)
    _fails(
        folder, f"{folder}/labels/annotator1_qrels.jsonl:3: relevances['3'] must be -1..5, got 7"
    )


def test_duplicate_qrels_line(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "labels" / "annotator1_qrels.jsonl")
    write_jsonl(folder / "labels" / "annotator1_qrels.jsonl", [*lines, lines[0]])
    _fails(
        folder,
        f"{folder}/labels/annotator1_qrels.jsonl:10: duplicate line for "
        "(duc04-testb-3, duc04-testb-3:3#10), first at line 1",
    )


def test_qlabels_on_unknown_output(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "labels" / "annotator1_qlabels.jsonl")
    lines[5]["id"] = "splade_duc04-testb-7"
    write_jsonl(folder / "labels" / "annotator1_qlabels.jsonl", lines)
    _fails(
        folder,
        f"{folder}/labels/annotator1_qlabels.jsonl:6: unknown output id "
        "'splade_duc04-testb-7' (not in the report files)",
    )


def test_qlabels_nugget_keys_must_match_questions(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "labels" / "annotator1_qlabels.jsonl")
    nugget = lines[0]["question_based_nugget"]
    lines[0]["question_based_nugget"] = dict(reversed(nugget.items()))
    write_jsonl(folder / "labels" / "annotator1_qlabels.jsonl", lines)
    _fails(
        folder,
        f"{folder}/labels/annotator1_qlabels.jsonl:1: question_based_nugget key 0 is "
        "'How did the 2029 decision to defer the gate overhaul affect ', expected "
        "'What event began the public doubts about the Lindqvist barri' "
        "(the keys must be the topic's sub-questions in order)",
    )


def test_qlabels_answerability_of_wrong_length(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "labels" / "annotator2_qlabels.jsonl")
    lines[1]["answerability"].append(1)
    write_jsonl(folder / "labels" / "annotator2_qlabels.jsonl", lines)
    _fails(
        folder,
        f"{folder}/labels/annotator2_qlabels.jsonl:2: answerability has 16 values but the "
        "topic of 'duc04-testb-7' has 15 sub-questions",
    )


def test_document_file_that_is_not_json(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    (folder / "documents" / "duc04-testb-3:0#0").write_text('{"id": "duc04-testb-3:0#0",\n x}')
    _fails(
        folder,
        f"{folder}/documents/duc04-testb-3:0#0:2: malformed JSON: "
        "Expecting property name enclosed in double quotes (column 2)",
    )


def test_qrels_label_on_unknown_passage(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "labels" / "annotator1_qrels.jsonl")
    lines[3]["document"] = "duc04-testb-3:99#99"
    write_jsonl(folder / "labels" / "annotator1_qrels.jsonl", lines)
    _fails(
        folder,
        f"{folder}/labels/annotator1_qrels.jsonl:4: unknown passage 'duc04-testb-3:99#99' "
        "(not a document, run or context passage)",
    )
