"""Pure judging: rubric prompts per item, one batched model call, parsed and unparsable ratings."""

import pytest

from evaluation.backends.base import Generation
from evaluation.crux.engine import (
    JudgeItem,
    build_judge_prompts,
    has_context,
    judge_params,
    rate_items,
)
from evaluation.crux.method.judge_prompts import CRUX_RUBRIC_V1, JUDGE_MAX_NEW_TOKENS
from tests.evaluation.crux.fake_judge import ScriptedJudge

ITEMS = [
    JudgeItem(("t1", 0, "p1"), "Who built the canal?", "The canal was built by engineers."),
    JudgeItem(("t1", 1, "p1"), "When did it open?", "The canal was built by engineers."),
    JudgeItem(("t2", 0, "r1"), "What caused the flood?", " A report: heavy rain caused it. "),
]


def test_prompts_are_the_versioned_rubric_with_question_and_context_in_item_order():
    prompts = build_judge_prompts(ITEMS, CRUX_RUBRIC_V1)
    assert prompts == [CRUX_RUBRIC_V1.render(i.question, i.context) for i in ITEMS]
    assert "Question: When did it open?\n\nContext: The canal was built by engineers." in prompts[1]
    assert "Context: A report: heavy rain caused it.\n\nRating:" in prompts[2]
    assert all(p.endswith("Rating:") for p in prompts)


def test_an_item_without_context_text_is_refused():
    assert not has_context("  \n") and has_context(" x ")
    with pytest.raises(ValueError, match=r"item \('t9', 0, 'p9'\) has no context text"):
        build_judge_prompts([JudgeItem(("t9", 0, "p9"), "Q?", "   ")], CRUX_RUBRIC_V1)


def test_judge_decodes_greedily_with_at_most_five_new_tokens():
    params = judge_params()
    assert (params.max_new_tokens, params.temperature, params.num_samples) == (5, 0.0, 1)
    assert JUDGE_MAX_NEW_TOKENS == 5


def test_rate_items_makes_one_batched_call_and_parses_each_rating():
    replies = {"Who built": " 4\n", "When did": "Rating: 2", "What caused": " The context"}
    judge = ScriptedJudge(lambda p: next(r for q, r in replies.items() if f"Question: {q}" in p))
    rated = rate_items(ITEMS, judge, CRUX_RUBRIC_V1)

    assert len(judge.calls) == 1
    prompts, params = judge.calls[0]
    assert prompts == build_judge_prompts(ITEMS, CRUX_RUBRIC_V1)
    assert params == judge_params()
    assert [r.item.key for r in rated] == [i.key for i in ITEMS]
    assert [r.rating for r in rated] == [4, 2, None]
    assert [r.raw_output for r in rated] == [" 4\n", "Rating: 2", " The context"]
    assert [r.is_parsed for r in rated] == [True, True, False]
    assert rated[0].prompt == prompts[0]
    assert rate_items([], judge, CRUX_RUBRIC_V1) == [] and len(judge.calls) == 1


class DroppingJudge(ScriptedJudge):
    def generate(self, prompts, params):
        return [[Generation(text="3")]]  # one result whatever the number of prompts


def test_a_judge_that_drops_prompts_is_an_error_not_a_silent_gap():
    with pytest.raises(ValueError, match="returned 1 results for 3 prompts"):
        rate_items(ITEMS, DroppingJudge(), CRUX_RUBRIC_V1)
