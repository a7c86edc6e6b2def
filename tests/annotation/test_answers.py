"""Answer parsing, gold values and agreement scores of the four task types (pure Python)."""

import pytest

from annotation.task_types.answers import (
    AnswerError,
    agreement_score,
    anchor_span,
    answer_summary,
    parse_answer,
    parse_gold_value,
)
from annotation.task_types.attention_checks import build_attention_checks
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
    TASK_TYPES,
)

PASSAGE = {"passage": "The river flooded the delta in June."}
REPORT = {"report": "Rain fell. The dam broke.", "questions": [{"position": 0}, {"position": 2}]}


def test_passage_rating_with_a_matching_span():
    answer = parse_answer(
        PASSAGE_RATING,
        {"rating": "4", "rationale": "the delta", "rationale_start": "18", "rationale_end": "27"},
        PASSAGE,
    )
    assert answer == {
        "rating": 4,
        "rationale": "the delta",
        "rationale_start": 18,
        "rationale_end": 27,
    }


def test_a_span_with_wrong_offsets_is_re_anchored_or_kept_without_offsets():
    assert anchor_span("abc abc", "abc", 1, 4) == ("abc", 0, 3)
    assert anchor_span("abc", "xyz", 0, 3) == ("xyz", None, None)
    assert anchor_span("abc", "", None, None) == ("", None, None)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({}, "rating"),
        ({"rating": "6"}, "rating"),
        ({"rating": "3", "rationale_start": "x"}, "rationale_start"),
        ({"rating": "3", "rationale_start": "5", "rationale_end": "2"}, "rationale_end"),
    ],
)
def test_passage_rating_errors_name_the_field(data, field):
    with pytest.raises(AnswerError) as caught:
        parse_answer(PASSAGE_RATING, data, PASSAGE)
    assert caught.value.field == field


def test_report_coverage_answers_every_question_and_drops_spans_of_no():
    answer = parse_answer(
        REPORT_COVERAGE,
        {"answer_0": "yes", "span_0": "The dam broke.", "answer_2": "no", "span_2": "Rain fell."},
        REPORT,
    )
    assert answer == {
        "answers": [
            {"position": 0, "answerable": 1, "span": "The dam broke.", "span_start": 11,
             "span_end": 25},
            {"position": 2, "answerable": 0, "span": "", "span_start": None, "span_end": None},
        ]
    }  # fmt: skip
    with pytest.raises(AnswerError, match="answer_2"):
        parse_answer(REPORT_COVERAGE, {"answer_0": "y"}, REPORT)


def test_equivalence_and_category():
    assert parse_answer(ANSWER_EQUIVALENCE, {"equivalent": "yes"}, {}) == {"equivalent": True}
    assert parse_answer(ANSWER_EQUIVALENCE, {"equivalent": "n"}, {}) == {"equivalent": False}
    assert parse_answer(FAILURE_CATEGORY, {"category": "c"}, {}) == {"category": "C"}
    with pytest.raises(AnswerError, match="category"):
        parse_answer(FAILURE_CATEGORY, {"category": "G"}, {})


def test_gold_values_in_one_cell():
    assert parse_gold_value(PASSAGE_RATING, "5", {}) == {"rating": 5}
    assert parse_gold_value(REPORT_COVERAGE, "y,0", REPORT) == {
        "answers": [{"position": 0, "answerable": 1}, {"position": 2, "answerable": 0}]
    }
    with pytest.raises(AnswerError, match="2 yes/no values"):
        parse_gold_value(REPORT_COVERAGE, "y", REPORT)
    assert parse_gold_value(ANSWER_EQUIVALENCE, "no", {}) == {"equivalent": False}
    assert parse_gold_value(FAILURE_CATEGORY, "e", {}) == {"category": "E"}


def test_agreement_scores():
    assert agreement_score(PASSAGE_RATING, {"rating": 3}, {"rating": 4}, tolerance=1) == 1.0
    assert agreement_score(PASSAGE_RATING, {"rating": 3}, {"rating": 5}, tolerance=1) == 0.0
    gold = {"answers": [{"position": 0, "answerable": 1}, {"position": 2, "answerable": 0}]}
    given = {"answers": [{"position": 0, "answerable": 1}, {"position": 2, "answerable": 1}]}
    assert agreement_score(REPORT_COVERAGE, given, gold) == 0.5
    assert agreement_score(ANSWER_EQUIVALENCE, {"equivalent": True}, {"equivalent": True}) == 1.0
    assert agreement_score(FAILURE_CATEGORY, {"category": "A"}, {"category": "B"}) == 0.0
    assert answer_summary(REPORT_COVERAGE, given) == "y y"


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_attention_checks_state_their_expected_answer_and_are_reproducible(task_type):
    checks = build_attention_checks(task_type, 3, seed=7)
    assert checks == build_attention_checks(task_type, 3, seed=7)
    for check in checks:
        text = " ".join(str(v) for v in check.payload.values())
        assert "attention check" in text.lower()
        # The expected answer scores 1 against itself: the check is answerable as stated.
        assert agreement_score(task_type, check.expected, check.expected) == 1.0
