import pytest

from evaluation.crux.method.judge_prompts import (
    CRUX_RUBRIC_V1,
    DEFAULT_PROMPT_VERSION,
    get_prompt,
    parse_rating,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("4", 4),
        (" Rating: 5\n", 5),
        ("0", 0),
        ("3/5", 3),
        ("I would rate it 2.", 2),
        ("10", None),
        ("4.5", None),
        ("-1", None),
        ("6", None),
        ("", None),
        ("The context is relevant", None),
        ("7 then 3", 3),
    ],
)
def test_parse_rating_takes_first_standalone_integer_0_to_5(raw, expected):
    assert parse_rating(raw) == expected


def test_rendered_prompt_holds_instruction_guideline_question_context_and_ends_with_rating():
    text = CRUX_RUBRIC_V1.render("Who built it?", "  The canal was built by engineers. ")
    assert text.startswith("Determine whether the question can be answered")
    assert "- 5: The context is highly relevant" in text
    assert "- 0: The context is not relevant" in text
    assert "Question: Who built it?" in text
    assert "Context: The canal was built by engineers." in text
    assert text.endswith("Rating:")


def test_prompt_versions_are_looked_up_by_name():
    assert get_prompt(DEFAULT_PROMPT_VERSION) is CRUX_RUBRIC_V1
    with pytest.raises(ValueError, match="unknown prompt version 'nope'"):
        get_prompt("nope")
