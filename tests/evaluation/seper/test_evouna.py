"""EVOUNA-layout parsing and the three answer-equivalence scorers on a hand-made file."""

import json
from pathlib import Path

import numpy as np
import pytest

from evaluation.seper.evouna import (
    EvounaFormatError,
    agreement,
    entailment_kernel_scores,
    evaluate_file,
    parse_evouna,
    parse_judgement,
    read_evouna,
    render_report,
    split_golds,
)
from tests.evaluation.seper.seper_doubles import WordNLI

SMALL = Path(__file__).parent / "data" / "evouna_small.json"


def test_judgements_booleans_strings_and_everything_else():
    assert parse_judgement(True) is True and parse_judgement("True") is True
    assert parse_judgement(False) is False and parse_judgement("False") is False
    for value in (None, "nan", float("nan"), "true", 1, 0, ""):
        assert parse_judgement(value) is None, value


def test_gold_answers_are_split_on_slashes():
    assert split_golds("Jane Austen/ Austen /") == ("Jane Austen", "Austen")


def test_small_file_usable_pairs_improper_and_unjudged():
    data = read_evouna(SMALL)
    assert data.records == 10 and data.improper == 2
    assert data.systems == ("fid", "gpt35")
    fid = [j for j in data.judged if j.system == "fid"]
    gpt = [j for j in data.judged if j.system == "gpt35"]
    assert [j.record for j in fid] == [0, 1, 2, 5, 6, 7, 8]
    assert [j.human for j in fid] == [True, True, True, False, False, True, True]
    # gpt35: None and "nan" are unjudged (records 5, 6); record 8 has no answer.
    assert [j.record for j in gpt] == [0, 1, 2, 7, 9]
    assert data.unusable == {"fid": 1, "gpt35": 3}
    assert fid[1].golds == ("Jane Austen", "Austen")
    assert fid[1].question == "Who wrote Pride and Prejudice?"


def test_scores_by_hand_with_a_word_overlap_nli():
    data = read_evouna(SMALL)
    fid, gpt = evaluate_file(data, WordNLI())
    assert (fid.system, fid.n, fid.unusable) == ("fid", 7, 1)
    # Entailment (either direction's words contained) agrees with every fid label, and
    # catches "da Vinci" for "Leonardo da Vinci", which lexical match misses (4 TP, 1 FN).
    assert fid.metrics["entailment"] == (1.0, 1.0)
    assert fid.metrics["lexical_match"] == pytest.approx((8 / 9, 6 / 7))
    assert fid.metrics["exact_match"] == pytest.approx((8 / 9, 6 / 7))
    assert (gpt.n, gpt.unusable) == (5, 3)
    # "not carbon dioxide but oxygen" fools both: 2 TP, 1 FP, 2 TN.
    assert gpt.metrics["entailment"] == pytest.approx((0.8, 0.8))
    assert gpt.metrics["lexical_match"] == pytest.approx((0.8, 0.8))
    # Exact match says no to all five: no true positive, F1 0, accuracy 3/5.
    assert gpt.metrics["exact_match"] == pytest.approx((0.0, 0.6))


def test_threshold_is_applied_to_the_kernel():
    data = read_evouna(SMALL)
    scores = entailment_kernel_scores(data.judged, WordNLI())
    assert set(np.round(scores, 6)) <= {0.9, 0.1, 0.2}
    fid, _ = evaluate_file(data, WordNLI(), threshold=0.95)
    assert fid.metrics["entailment"] == pytest.approx((0.0, 2 / 7))
    with pytest.raises(ValueError, match="threshold"):
        evaluate_file(data, WordNLI(), threshold=1.5)


def test_nli_pairs_carry_the_question_and_are_deduplicated():
    data = parse_evouna(
        [
            {"question": "Q?", "golden_answer": "a", "answer_x": "b", "judge_x": True},
            {"question": "Q?", "golden_answer": "a", "answer_x": "b", "judge_x": False},
        ],
        "inline",
    )
    nli = WordNLI()
    entailment_kernel_scores(data.judged, nli)
    ((pairs, questions),) = nli.calls
    assert pairs == [("b", "a"), ("a", "b")] and questions == ["Q?", "Q?"]


def test_undefined_scores_are_none():
    assert agreement(np.array([], bool), np.array([], bool)) == (None, None)
    # No positive anywhere: F1 is 0/0.
    assert agreement(np.array([False, False]), np.array([False, False])) == (None, 1.0)


def test_report_json_and_csv():
    data = read_evouna(SMALL)
    scores = evaluate_file(data, WordNLI())
    report = json.loads(render_report(data, scores, "json", {"threshold": 0.5}))
    assert report["records"] == 10 and report["improper"] == 2 and report["threshold"] == 0.5
    assert report["systems"][1]["exact_match"] == {"f1": 0.0, "accuracy": 0.6}
    lines = render_report(data, scores, "csv", {}).splitlines()
    assert lines[0] == (
        "system,n,unusable,entailment_f1,entailment_accuracy,lexical_match_f1,"
        "lexical_match_accuracy,exact_match_f1,exact_match_accuracy"
    )
    assert lines[2] == "gpt35,5,3,0.8,0.8,0.8,0.8,0.0,0.6"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"question": "x"}', "expected a JSON list of records"),
        ("[1]", "record 0: expected an object, got int"),
        ('[{"golden_answer": "a"}]', "record 0: field 'question' is missing"),
        ('[{"question": "q", "golden_answer": 3}]', "record 0, field 'golden_answer'"),
        ('[{"question": "q", "golden_answer": " / "}]', "field 'golden_answer': no gold"),
        (
            '[{"question": "q", "golden_answer": "a", "answer_fid": "a"}]',
            "record 0: field 'answer_fid' has no judgement",
        ),
        (
            '[{"question": "q", "golden_answer": "a", "judge_fid": true}]',
            "record 0: field 'judge_fid' has no answer",
        ),
        (
            '[{"question": "q", "golden_answer": "a"},\n'
            ' {"question": "q", "golden_answer": "a", "answer_fid": 7, "judge_fid": true}]',
            "record 1, field 'answer_fid': expected a string or null",
        ),
        ('[{"question": "q",\n "golden_answer": }]', "invalid JSON at line 2"),
    ],
)
def test_malformed_files_name_file_record_and_field(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(EvounaFormatError) as caught:
        read_evouna(path)
    assert str(caught.value).startswith(str(path))
    assert message in str(caught.value)


def test_improper_records_are_not_checked_further():
    data = parse_evouna([{"improper": "True", "golden_answer": 5}, {"improper": True}], "inline")
    assert (data.records, data.improper, data.judged) == (2, 2, ())
