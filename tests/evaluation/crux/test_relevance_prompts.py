"""The UMBRELA-style 0-3 relevance rubric: its rendered prompt (checked by hand, whole), its
grade parser, and the rubric registry beside CRUX's."""

import pytest

from evaluation.crux.engine import JudgeItem, rate_items
from evaluation.crux.method.judge_prompts import (
    CRUX,
    CRUX_RUBRIC_V1,
    DEFAULT_VERSIONS,
    RUBRICS,
    UMBRELA,
    rubric_prompt,
)
from evaluation.crux.method.relevance_prompts import (
    UMBRELA_V1,
    parse_relevance,
)
from tests.evaluation.crux.fake_judge import ScriptedJudge

EXPECTED_PROMPT = """\
You are judging search results. Given a query and a passage, grade how relevant the passage is \
to the query on a whole-number scale from 0 to 3:
0 = the passage has nothing to do with the query
1 = the passage is about the query's subject but does not answer it
2 = the passage holds some answer to the query, but the answer is unclear or hidden among other \
information
3 = the passage is devoted to the query and holds the exact answer

How to tell the levels apart: give 1 when the passage touches the query's subject without \
serving it; give 2 when it says something that matters for the whole query but mixes it with \
other material; give 3 only when the passage is about the query and nothing else. When none of \
these fits, give 0.

Query: black bear attacks

Passage: Bears rarely attack {people}.

Work through it silently: think about what the person searching most likely wants; judge how \
well the passage meets that need; judge how trustworthy the passage is; weigh these and settle \
on one final grade. Answer with that grade alone, a single digit 0, 1, 2 or 3, with no \
explanation.

Grade:"""


def test_the_rendered_prompt_is_the_whole_hand_checked_text():
    # Surrounding blanks are stripped; braces in a passage are text, not template fields.
    text = UMBRELA_V1.render("  black bear attacks ", "\n Bears rarely attack {people}.  ")
    assert text == EXPECTED_PROMPT


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("3", 3),
        (" 0", 0),
        ("2\n", 2),
        ("Grade: 1", 1),
        ("##final score: 2", 2),
        ("On a scale of 0 to 3, score: 3", 3),  # the grade after the label, not the scale's 0
        ("grade = 2 (partly)", 2),
        ("3/3", 3),
        ("4", None),  # out of scale: unparsable, never clipped to 3
        ("10", None),
        ("Score: 5", None),
        ("2.5", None),
        ("-1", None),
        ("", None),
        ("The passage is relevant.", None),
        ("Grade:", None),
        ("7 then 2", None),  # the first whole number decides (unlike CRUX's first 0-5)
    ],
)
def test_parse_relevance_reads_one_grade_0_to_3(raw, expected):
    assert parse_relevance(raw) == expected
    assert UMBRELA_V1.parse(raw) == expected


def test_each_rubric_has_its_versions_and_a_default():
    assert set(RUBRICS) == {CRUX, UMBRELA}
    assert rubric_prompt(CRUX, DEFAULT_VERSIONS[CRUX]) is CRUX_RUBRIC_V1
    assert rubric_prompt(UMBRELA, DEFAULT_VERSIONS[UMBRELA]) is UMBRELA_V1
    assert UMBRELA_V1.version == "umbrela-v1"
    with pytest.raises(ValueError, match="unknown prompt version 'umbrela-v1' of the crux"):
        rubric_prompt(CRUX, "umbrela-v1")
    with pytest.raises(ValueError, match="unknown prompt version 'crux-rubric-v1' of the umbrela"):
        rubric_prompt(UMBRELA, "crux-rubric-v1")
    with pytest.raises(ValueError, match="unknown rubric 'trec'"):
        rubric_prompt("trec", "v1")


def test_the_engine_parses_each_rubrics_answer_with_its_own_parser():
    judge = ScriptedJudge(reply=lambda prompt: " 4")
    items = [JudgeItem("k", "black bear attacks", "Bears rarely attack.")]
    (umbrela,) = rate_items(items, judge, UMBRELA_V1)
    (crux,) = rate_items(items, judge, CRUX_RUBRIC_V1)
    assert umbrela.rating is None and not umbrela.is_parsed  # 4 is outside 0-3
    assert crux.rating == 4
    assert umbrela.prompt == UMBRELA_V1.render("black bear attacks", "Bears rarely attack.")
