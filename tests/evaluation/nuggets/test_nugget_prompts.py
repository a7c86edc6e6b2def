"""The nugget judge's prompts and parsers (pure): what each prompt shows, and what each parser
takes from well-formed, sloppy and unusable replies."""

import pytest

from evaluation.nuggets.method.prompts import (
    ASSIGNMENT_DIGITS,
    IMPORTANCE_DIGITS,
    MAX_NUGGETS,
    SENTENCE_DIGITS,
    assignment_prompt,
    creation_prompt,
    importance_prompt,
    parse_digit,
    parse_nugget_list,
    sentence_support_prompt,
)


def test_creation_prompt_shows_query_list_and_numbered_passages():
    prompt = creation_prompt("why tides", ["moon pulls water"], ["p one", "p two"])
    assert "Question: why tides" in prompt
    assert "1. moon pulls water" in prompt
    assert "[1] p one\n\n[2] p two" in prompt
    assert "(none yet)" in creation_prompt("q", [], ["p"])


def test_nugget_list_parser_keeps_list_lines_in_order_without_repeats():
    reply = (
        "Here you go:\n- moon pulls water\n* sun adds a pull\n2) moon pulls water\n3. tides\nend"
    )
    assert parse_nugget_list(reply) == ["moon pulls water", "sun adds a pull", "tides"]
    assert parse_nugget_list("no list at all") == []
    many = "\n".join(f"- fact {i}" for i in range(MAX_NUGGETS + 5))
    assert len(parse_nugget_list(many)) == MAX_NUGGETS


def test_digit_parsers():
    assert parse_digit(" 1", IMPORTANCE_DIGITS) == "vital"
    assert parse_digit("2 (okay)", IMPORTANCE_DIGITS) == "okay"
    assert parse_digit("3", ASSIGNMENT_DIGITS[3]) == "not_support"
    assert parse_digit("3", ASSIGNMENT_DIGITS[2]) is None  # not a 2-grade digit
    assert parse_digit("Digit: 2", ASSIGNMENT_DIGITS[3]) == "partial_support"
    assert parse_digit("none", SENTENCE_DIGITS) is None
    assert parse_digit("0", SENTENCE_DIGITS) == 0


def test_assignment_prompts_name_their_scale():
    three = assignment_prompt("q", "an answer", "a fact", 3)
    assert "Answer: an answer" in three and "3 if it does not state it" in three
    assert "2 if it does not" in assignment_prompt("q", "a", "f", 2)
    with pytest.raises(ValueError):
        assignment_prompt("q", "a", "f", 4)
    assert "Fact: f" in importance_prompt("q", "f")
    assert "Passage: p\nSentence: s" in sentence_support_prompt("s", "p")
