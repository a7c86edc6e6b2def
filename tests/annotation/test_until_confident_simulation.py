"""The until-confident policy on a simulated crowd (bench/until_confident.py's setting): it
reaches fixed overlap 4's accuracy with fewer labels."""

from __future__ import annotations

from annotation.crowd.aggregation import aggregate
from annotation.crowd.simulation import (
    accuracy,
    fixed_overlap_labels,
    make_crowd,
    n_labels,
    until_confident_labels,
)
from bench.until_confident import MIX


def test_until_confident_spends_fewer_labels_at_the_same_accuracy():
    crowd = make_crowd(n_items=600, mix=MIX, seed=0)
    fixed = fixed_overlap_labels(crowd, 4)
    adaptive = until_confident_labels(crowd, overlap=2, target=0.8, cap=7)
    fixed_hit = accuracy(aggregate(fixed, "majority").labels, crowd.truth)
    adaptive_hit = accuracy(aggregate(adaptive, "majority").labels, crowd.truth)
    # Figures of `python -m bench.until_confident --items 600`: 2,400 labels at 0.908 for
    # fixed overlap 4; 2,082 (3.47 per item) at 0.913 until confident.
    assert (n_labels(fixed), round(fixed_hit, 3)) == (2400, 0.908)
    assert (n_labels(adaptive), round(adaptive_hit, 3)) == (2082, 0.913)
    assert all(2 <= len(labels) <= 7 for labels in adaptive.values())
