"""The crowd models (annotation/crowd/aggregation.py) on hand-checked toy labels and on a
simulated crowd of careful, noisy, spamming and always-yes workers."""

from __future__ import annotations

import pytest

from annotation.crowd.aggregation import METHODS, AggregationError, aggregate
from annotation.crowd.simulation import (
    ALWAYS_YES,
    CAREFUL,
    SPAMMER,
    accuracy,
    fixed_overlap_labels,
    make_crowd,
)

TOY = {"a": {"w1": 1, "w2": 1, "w3": 0}, "b": {"w1": 0, "w2": 0, "w3": 0}}


def test_majority_and_wawa_by_hand():
    plain = aggregate(TOY, "majority")
    assert plain.labels == {"a": 1, "b": 0}
    assert plain.confidence["a"] == pytest.approx(2 / 3)
    assert plain.confidence["b"] == 1.0
    assert plain.n_labels == {"a": 3, "b": 3}
    # w3's labels: a = 0 (posterior 1/3), b = 0 (posterior 1): skill 2/3.
    assert plain.workers["w3"].skill == pytest.approx(2 / 3)
    assert plain.workers["w1"].skill == pytest.approx((2 / 3 + 1) / 2)
    # Confusion of w3 given the posteriors: true 1 has mass only on a (2/3), where w3 said 0.
    assert plain.workers["w3"].confusion[1] == {0: pytest.approx(1.0), 1: 0.0}
    # Wawa: weights are agreement with the majority (w1 1, w2 1, w3 1/2): P(a = 1) = 2 / 2.5.
    weighted = aggregate(TOY, "wawa")
    assert weighted.labels == {"a": 1, "b": 0}
    assert weighted.confidence["a"] == pytest.approx(0.8)


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_on_every_label_vocabulary(method):
    """Ratings 0-5 (as categories), yes/no, letters and nugget support labels all run."""
    vocabularies = {
        "rating": {"i1": {"a": 3, "b": 3, "c": 5}, "i2": {"a": 0, "b": 1, "c": 0}},
        "yes_no": {"i1": {"a": 1, "b": 1, "c": 0}, "i2": {"a": 0, "b": 0, "c": 0}},
        "letter": {"i1": {"a": "C", "b": "C", "c": "A"}, "i2": {"a": "F", "b": "F", "c": "B"}},
        "support": {
            "i1": {"a": "support", "b": "support", "c": "not_support"},
            "i2": {"a": "partial_support", "b": "partial_support", "c": "support"},
        },
    }
    results = {name: aggregate(labels, method, seed=3) for name, labels in vocabularies.items()}
    for result in results.values():
        assert set(result.labels) == {"i1", "i2"}
        assert all(0.0 <= c <= 1.0 for c in result.confidence.values())
        assert set(result.workers) == {"a", "b", "c"}
    assert results["rating"] == aggregate(vocabularies["rating"], method, seed=3)  # deterministic
    # Two of three agree on each item: every model follows them.
    assert results["letter"].labels == {"i1": "C", "i2": "F"}


def test_unknown_method_and_no_labels_are_refused():
    with pytest.raises(AggregationError, match="unknown method 'vote'"):
        aggregate(TOY, "vote")
    with pytest.raises(AggregationError, match="no labels"):
        aggregate({}, "majority")


@pytest.fixture(scope="module")
def crowd_runs():
    crowd = make_crowd(n_items=120, seed=0)
    labels = fixed_overlap_labels(crowd, 5)
    return crowd, {m: aggregate(labels, m) for m in ("majority", "dawid_skene")}


def test_dawid_skene_recovers_the_truth_better_than_majority(crowd_runs):
    crowd, runs = crowd_runs
    # 120 items (44 true yes), 5 labels each from 2 careful (92 %), 3 noisy (70 %),
    # 3 spamming and 2 always-yes workers: the always-yes votes drag majority to yes.
    assert accuracy(runs["majority"].labels, crowd.truth) == pytest.approx(85 / 120)
    assert accuracy(runs["dawid_skene"].labels, crowd.truth) == pytest.approx(99 / 120)


def test_dawid_skene_ranks_spammers_below_careful_workers(crowd_runs):
    crowd, runs = crowd_runs
    skill = {w: m.skill for w, m in runs["dawid_skene"].workers.items()}
    kind = {w.name: w.kind for w in crowd.workers}
    careful = [skill[w] for w in skill if kind[w] == CAREFUL]
    spammers = [skill[w] for w in skill if kind[w] in (SPAMMER, ALWAYS_YES)]
    assert min(careful) > 0.85 and max(spammers) < 0.7
    assert min(careful) > max(spammers)
    # Majority's skills hardly tell them apart (every worker between 0.58 and 0.70).
    plain = [m.skill for m in runs["majority"].workers.values()]
    assert max(plain) - min(plain) < 0.12
    # The always-yes worker's confusion: yes whatever the truth.
    always = next(w for w in skill if kind[w] == ALWAYS_YES)
    confusion = runs["dawid_skene"].workers[always].confusion
    assert confusion[0][1] == pytest.approx(1.0) and confusion[1][1] == pytest.approx(1.0)
