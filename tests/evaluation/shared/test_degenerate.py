"""Degenerate-judge checks on hand-made inputs: one item, all equal, empty, exactly at each
threshold."""

import math

import pytest

from evaluation.shared.degenerate import (
    CHANCE_LEVEL,
    CONSTANT,
    CONSTANT_SHARE,
    ENTROPY_FLOOR,
    MIN_ITEMS,
    NO_GAIN,
    TIED,
    UNIFORM,
    UNPARSABLE,
    Interval,
    chance_interval,
    constant_ratings,
    no_context_gain,
    ratings_histogram,
    same_everywhere,
    spread,
    tied_runs,
    uniform_uncertainty,
    unparsable_outputs,
)


def test_spread_of_an_empty_histogram_is_undefined():
    s = spread({})
    assert (s.n, s.top, s.share, s.entropy) == (0, None, None, None)
    assert spread({3: 0, 4: 0}).n == 0


def test_spread_of_one_item_and_of_all_equal_has_entropy_0():
    assert spread({4: 1}).entropy == 0.0 and spread({4: 1}).share == 1.0
    s = spread({4: 130})
    assert (s.top, s.top_count, s.share, s.entropy) == (4, 130, 1.0, 0.0)


def test_spread_of_a_uniform_histogram_has_entropy_1_and_the_lowest_top():
    s = spread({r: 5 for r in range(6)})
    assert s.entropy == pytest.approx(1.0)
    assert s.top == 0 and s.share == pytest.approx(1 / 6)


def test_spread_by_hand():
    # 127 fours, 2 fives, 1 zero: H = -(p ln p summed) / ln 6.
    s = spread({4: 127, 5: 2, 0: 1})
    p = [127 / 130, 2 / 130, 1 / 130]
    assert s.entropy == pytest.approx(-sum(x * math.log(x) for x in p) / math.log(6))
    assert list(s.counts) == [0, 4, 5]


def test_spread_refuses_negative_counts_and_one_level():
    with pytest.raises(ValueError, match="negative"):
        spread({1: -1})
    with pytest.raises(ValueError, match="levels"):
        spread({1: 3}, levels=1)


def test_histogram_leaves_out_unparsable_and_nan():
    assert ratings_histogram([4, 4, None, float("nan"), 2.0]) == {4: 2, 2: 1}
    assert ratings_histogram([]) == {}


def test_the_issue_example_names_the_judge_and_the_figures():
    w = constant_ratings("smollm@v1", {4: 127, 5: 2, 0: 1}, scope="on topic t1")
    assert w is not None and w.kind == CONSTANT and w.judge == "smollm@v1"
    assert "smollm@v1 gave 4 to 127 of 130 items on topic t1 (98%)" in w.message
    assert "0: 1, 4: 127, 5: 2" in w.message
    assert w.figures["count"] == 127 and w.figures["items"] == 130


def test_constant_ratings_need_enough_items():
    assert constant_ratings("j", {}) is None
    assert constant_ratings("j", {4: 1}) is None  # one item says nothing either way
    assert constant_ratings("j", {4: MIN_ITEMS - 1}) is None
    assert constant_ratings("j", {4: MIN_ITEMS}) is not None  # all equal
    assert constant_ratings("j", {4: 1}, min_items=1) is not None


def test_constant_share_exactly_at_the_threshold_is_not_warned():
    # 9 of 10 is exactly 90%: not "more than 90%" (entropy check off).
    assert constant_ratings("j", {4: 9, 1: 1}, entropy_floor=0.0) is None
    assert constant_ratings("j", {4: 91, 1: 9}, entropy_floor=0.0) is not None
    assert CONSTANT_SHARE == 0.9


def test_entropy_exactly_at_the_floor_is_not_warned():
    counts = {0: 20, 1: 20, 2: 20, 3: 20, 4: 20}
    floor = spread(counts).entropy
    assert constant_ratings("j", counts, entropy_floor=floor) is None
    assert constant_ratings("j", counts, entropy_floor=floor + 1e-9) is not None
    assert ENTROPY_FLOOR == 0.2


def test_a_spread_judge_is_not_warned():
    assert constant_ratings("j", {0: 30, 1: 10, 3: 25, 4: 20, 5: 15}) is None


def test_low_entropy_warns_below_the_share_threshold():
    # Under 90% on one value, the rest on one other value: 88 / 12 has H = 0.205 (no warning),
    # 89 / 11 has H = 0.193 < 0.2 (warned).
    assert constant_ratings("j", {4: 88, 0: 12}) is None
    w = constant_ratings("j", {4: 89, 0: 11})
    assert w is not None and "89%" in w.message


def test_unparsable_share():
    assert unparsable_outputs("j", 0, 0) is None
    assert unparsable_outputs("j", 0, 50) is None
    assert unparsable_outputs("j", 10, 100) is None  # exactly 10%
    w = unparsable_outputs("j", 11, 100, scope="on topic t1")
    assert w is not None and w.kind == UNPARSABLE
    assert w.message.startswith("11 of 100 outputs of j on topic t1 (11%)")
    assert unparsable_outputs("j", 1, 1) is not None  # one item, all unparsable


def test_tied_runs():
    assert tied_runs("Coverage@10", {}) is None
    assert tied_runs("Coverage@10", {"a": 1.0}) is None  # one run is not a tie
    assert tied_runs("Coverage@10", {"a": 1.0, "b": 0.5}) is None
    w = tied_runs("Coverage@10", {"a": 1.0, "b": 1.0, "c": None}, judge="smollm")
    assert w is not None and w.kind == TIED and w.judge == "smollm"
    assert "Every run scores 1.0000 on Coverage@10 under smollm (2 runs" in w.message
    assert "undefined for 1 other run" in w.message
    assert tied_runs("x", {"a": 0.1 + 0.2, "b": 0.3}) is not None  # float noise is a tie
    assert tied_runs("x", {"a": None, "b": float("nan")}) is None


def test_chance_interval():
    kappa = Interval("Cohen's κ", 0.05, -0.1, 0.21, 40)
    assert chance_interval("j", "ann", []) is None
    assert chance_interval("j", "ann", [Interval("κ", None, None, None, 1)]) is None
    assert chance_interval("j", "ann", [Interval("κ", 0.3, None, None, 40)]) is None
    assert chance_interval("j", "ann", [Interval("κ", 0.5, 0.2, 0.7, 40)]) is None
    w = chance_interval("j", "ann", [kappa, Interval("ρ", 0.5, 0.2, 0.7, 40)])
    assert w is not None and w.kind == CHANCE_LEVEL
    assert "j vs ann: Cohen's κ = 0.050 [-0.100, 0.210] on 40 items" in w.message
    assert "ρ" not in w.message
    # An interval ending exactly at chance includes it.
    assert chance_interval("j", "ann", [Interval("κ", 0.2, 0.0, 0.4, 9)]) is not None
    assert chance_interval("j", "ann", [Interval("κ", 0.2, 1e-9, 0.4, 9)]) is None


def test_no_context_gain():
    assert no_context_gain("g", [], []) is None
    assert no_context_gain("g", [-0.1, 0.0], []) is None  # no gold context: nothing to say
    assert no_context_gain("g", [-0.1, 0.05], [-0.2]) is None
    assert no_context_gain("g", [-0.1], [0.01]) is None
    w = no_context_gain("g", [-0.1, 0.0, None], [-0.2], measure="ΔSePer_H")
    assert w is not None and w.kind == NO_GAIN
    assert "every ΔSePer_H is <= 0 (2 contexts, the highest 0.000)" in w.message
    assert "(-0.200)" in w.message
    assert no_context_gain("g", [0.0], [0.0]) is not None  # exactly 0 is no gain


def test_uniform_uncertainty():
    assert uniform_uncertainty("g", []) is None
    assert uniform_uncertainty("g", [True]) is None  # one question
    assert uniform_uncertainty("g", [True, False]) is None
    w = uniform_uncertainty("g", [True, True, True])
    assert w is not None and w.kind == UNIFORM and "all 3 questions are uncertain" in w.message
    w = uniform_uncertainty("g", [False, False])
    assert w is not None and "none of the 2 questions is uncertain" in w.message


def test_a_link_is_added_without_changing_the_rest():
    w = unparsable_outputs("j", 5, 5)
    assert w is not None and w.link == ""
    linked = w.linked("/x#y", "its ratings")
    assert (linked.link, linked.link_text, linked.message) == ("/x#y", "its ratings", w.message)
    assert linked.as_dict()["figures"] == {"unparsable": 5, "outputs": 5, "share": 1.0}


def test_a_score_the_same_everywhere_while_its_contrast_differs():
    scores = {"bm25 k=1": 1.0, "bm25 k=3": 1.0}
    accuracy = {"bm25 k=1": 0.333, "bm25 k=3": 0.667}
    warning = same_everywhere("judge j", "LLM-retEval@k", scores, accuracy, "answer accuracy")
    assert warning is not None and warning.kind == "same_everywhere"
    assert "LLM-retEval@k is 1.000 on every one of 2 row(s)" in warning.message
    assert "bm25 k=1: 0.333, bm25 k=3: 0.667" in warning.message
    # One row: only a ceiling value is suspicious.
    one = {"bm25 k=1": 1.0}
    assert same_everywhere("j", "m", one, {"bm25 k=1": 0.5}, "acc") is not None
    assert same_everywhere("j", "m", {"bm25 k=1": 0.4}, {"bm25 k=1": 0.5}, "acc") is None
    # The score differs between rows, or its contrast agrees: nothing to say.
    assert same_everywhere("j", "m", {"a": 1.0, "b": 0.5}, {"a": 0.3, "b": 0.3}, "acc") is None
    assert same_everywhere("j", "m", scores, {"bm25 k=1": 1.0, "bm25 k=3": 1.0}, "acc") is None
    assert same_everywhere("j", "m", {"a": None, "b": None}, {"a": 0.1}, "acc") is None
