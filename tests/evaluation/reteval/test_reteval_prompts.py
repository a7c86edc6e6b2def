"""The paper's Figure 2 and Figure 3 prompts and the judge's Yes/No parser."""

import pytest

from evaluation.reteval.method.prompts import (
    build_compare_prompt,
    build_reteval_answer_prompt,
    parse_verdict,
)


def test_answer_prompt_is_figure_2():
    prompt = build_reteval_answer_prompt(" Who? ", ["First.", "  ", "Second. "])
    assert prompt.startswith("Please read the question provided below and then review")
    assert "Question: Who?\n\nRelevant Document chunks:\nFirst.\nSecond.\n\n" in prompt
    assert prompt.endswith(
        "please provide an answer (maximum 5 tokens) to the question: Who?.\n\nAnswer:"
    )


def test_compare_prompt_is_figure_3():
    prompt = build_compare_prompt("Which gas?", ["carbon dioxide", " ", "CO2"], " oxygen ")
    assert prompt.startswith("You are CompareGPT, a machine to verify the correctness")
    assert "Question: Which gas?\n\nGround-truth answers: carbon dioxide | CO2\n\n" in prompt
    assert "Prediction: oxygen\n\n" in prompt
    assert prompt.endswith('otherwise answer "No".')
    with pytest.raises(ValueError, match="at least one non-empty ground-truth answer"):
        build_compare_prompt("Q?", ["  "], "x")


@pytest.mark.parametrize(
    ("raw", "verdict"),
    [
        ("Yes", True),
        (" no.", False),
        ("Answer: YES", True),
        ("No, yes", False),  # the first one counts
        ("Yesterday", None),  # whole words only
        ("Nobody knows", None),
        ("", None),
    ],
)
def test_parse_verdict(raw, verdict):
    assert parse_verdict(raw) is verdict
