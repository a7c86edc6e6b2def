"""Algorithm 3's state machine: best-context rule, pruning, refilling and every stopping rule."""

import numpy as np
import pytest

from evaluation.dense.method.graph import CERTAIN, NECESSARY, UNNECESSARY
from evaluation.dense.method.refinement import (
    EMPTY,
    NO_CHANGE,
    REPEATED,
    STEP_LIMIT,
    SUFFICIENT_AND_CERTAIN,
    ContextRefinement,
)

# Pool of 5 chunks; chunk 0 is most similar to 3, then 4; chunk 1 most similar to 4.
SIM = np.array(
    [
        [1.0, 0.1, 0.2, 0.9, 0.5],
        [0.1, 1.0, 0.3, 0.2, 0.8],
        [0.2, 0.3, 1.0, 0.1, 0.1],
        [0.9, 0.2, 0.1, 1.0, 0.4],
        [0.5, 0.8, 0.1, 0.4, 1.0],
    ]
)


def test_stops_at_once_when_certain_and_sufficient():
    r = ContextRefinement([0, 1, 2], SIM)
    r.observe(0.1, "Paris", [CERTAIN, CERTAIN, CERTAIN], sufficient=True)
    assert r.done and r.stop_reason == SUFFICIENT_AND_CERTAIN
    assert r.as_dict()["final_answer"] == "Paris"
    assert r.as_dict()["final_context"] == [0, 1, 2]


def test_certain_but_insufficient_keeps_refining_then_prunes_and_refills():
    r = ContextRefinement([0, 1, 2], SIM)
    r.observe(0.5, "Lyon", [NECESSARY, CERTAIN, UNNECESSARY], sufficient=False)
    assert not r.done
    # Chunk 2 dropped; chunk 0 is necessary: its most similar unvisited chunk is 3.
    assert r.context == (0, 1, 3)
    assert r.steps[0].removed == [2] and r.steps[0].added == [3]
    r.observe(0.15, "Paris", [CERTAIN, CERTAIN, CERTAIN], sufficient=True)
    assert r.done and r.stop_reason == SUFFICIENT_AND_CERTAIN
    assert r.best == 1
    assert r.as_dict()["final_answer"] == "Paris"


def test_refill_skips_visited_chunks_and_two_necessary_chunks_take_different_ones():
    r = ContextRefinement([0, 1], SIM)
    r.observe(0.7, "x", [NECESSARY, NECESSARY], sufficient=False)
    # 0 -> 3 (0.9); 1 -> 4 (0.8), both unvisited.
    assert r.context == (0, 1, 3, 4)
    r.observe(0.6, "y", [NECESSARY, CERTAIN, CERTAIN, CERTAIN], sufficient=False)
    # 0's best unvisited is now 2 (the only one left).
    assert r.context == (0, 1, 3, 4, 2)


def test_nothing_to_change_stops_and_keeps_the_lowest_dse():
    r = ContextRefinement([0, 1], SIM)
    r.observe(0.6, "first", [CERTAIN, UNNECESSARY], sufficient=False)
    assert r.context == (0,)
    r.observe(0.9, "second", [CERTAIN], sufficient=False)
    assert r.done and r.stop_reason == NO_CHANGE
    assert r.as_dict()["final_answer"] == "first"
    assert r.as_dict()["final_dse"] == 0.6


def test_a_sufficient_best_is_not_replaced_by_a_lower_insufficient_one():
    r = ContextRefinement([0, 1], SIM)
    r.observe(0.5, "sufficient", [NECESSARY, CERTAIN], sufficient=True)
    r.observe(0.3, "insufficient", [NECESSARY, CERTAIN, CERTAIN], sufficient=False)
    assert r.best_step.answer == "sufficient"
    # A lower DSE that is also sufficient does replace it.
    r.observe(0.25, "better", [NECESSARY, CERTAIN, CERTAIN, CERTAIN], sufficient=True)
    assert r.best_step.answer == "better"


def test_every_chunk_unnecessary_stops():
    r = ContextRefinement([0, 1], SIM)
    r.observe(0.7, "x", [UNNECESSARY, UNNECESSARY], sufficient=False)
    assert r.done and r.stop_reason == EMPTY


def test_step_limit_stops():
    r = ContextRefinement([0], SIM, max_steps=2)
    r.observe(0.7, "a", [NECESSARY], sufficient=False)
    r.observe(0.6, "b", [NECESSARY, CERTAIN], sufficient=False)
    assert r.done and r.stop_reason == STEP_LIMIT
    assert len(r.steps) == 2


def test_pool_exhausted_with_no_removal_stops():
    r = ContextRefinement([0, 1, 2, 3, 4], SIM)
    r.observe(0.7, "a", [NECESSARY] * 5, sufficient=False)
    assert r.done and r.stop_reason == NO_CHANGE


def test_coming_back_to_an_evaluated_context_stops():
    r = ContextRefinement([0], SIM)
    r.observe(0.7, "a", [NECESSARY], sufficient=False)
    assert r.context == (0, 3)
    # The refill turns out unnecessary: dropping it would give [0] again.
    r.observe(0.8, "b", [CERTAIN, UNNECESSARY], sufficient=False)
    assert r.done and r.stop_reason == REPEATED
    assert r.as_dict()["final_answer"] == "a"


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="no chunk"):
        ContextRefinement([], SIM)
    with pytest.raises(ValueError, match="repeats"):
        ContextRefinement([1, 1], SIM)
    with pytest.raises(ValueError, match="not in the pool"):
        ContextRefinement([7], SIM)
    r = ContextRefinement([0], SIM)
    with pytest.raises(ValueError, match="1 labels? for a context|labels for a context"):
        r.observe(0.1, "a", [CERTAIN, CERTAIN], sufficient=True)
    r.observe(0.1, "a", [CERTAIN], sufficient=True)
    with pytest.raises(ValueError, match="already stopped"):
        r.observe(0.1, "a", [CERTAIN], sufficient=True)
