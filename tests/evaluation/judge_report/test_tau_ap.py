"""tau-AP on hand-computed rankings, its edges, and its ties against brute-force enumeration of
every tie-break."""

import itertools

import numpy as np
import pytest

from evaluation.judge_report.method.tau_ap import tau_ap, tau_ap_columns, tau_ap_symmetric


def paper_tau_ap(order: list[int], truth_position: dict[int, int]) -> float:
    """Yilmaz et al.'s formula for two rankings without ties (items in list order)."""
    n = len(order)
    total = 0.0
    for i in range(1, n):
        item = order[i]
        correct = sum(truth_position[other] < truth_position[item] for other in order[:i])
        total += correct / i
    return 2 / (n - 1) * total - 1


def orders(scores: list[float]) -> list[tuple[int, ...]]:
    """Every order of the items consistent with ``scores`` (higher first; ties either way)."""
    n = len(scores)
    return [
        p
        for p in itertools.permutations(range(n))
        if all(scores[p[i]] >= scores[p[i + 1]] for i in range(n - 1))
    ]


def expected_by_enumeration(scores: list[float], truth: list[float]) -> float:
    values = [
        paper_tau_ap(list(lo), {item: pos for pos, item in enumerate(to)})
        for lo in orders(scores)
        for to in orders(truth)
    ]
    return float(np.mean(values))


def test_hand_computed_swap_at_the_bottom_and_at_the_top():
    # Truth a > b > c > d. List a, c, b, d: C = 1, 1, 3 at positions 2-4:
    # 2/3 * (1/1 + 1/2 + 3/3) - 1 = 2/3.
    assert tau_ap([4, 3, 2, 1], [4, 2, 3, 1]) == pytest.approx(2 / 3)
    # List b, a, c, d against truth a, b, c, d: C = 0, 2, 3: 2/3 * (0 + 1 + 1) - 1 = 1/3.
    assert tau_ap([3, 4, 2, 1], [4, 3, 2, 1]) == pytest.approx(1 / 3)
    # Kendall tau is 2/3 for both: tau-AP punishes the swap at the top more.


def test_identical_and_reversed_rankings():
    scores = [0.9, 0.5, 0.4, 0.1, 0.05]
    assert tau_ap(scores, scores) == pytest.approx(1.0)
    assert tau_ap(scores, [-s for s in scores]) == pytest.approx(-1.0)
    assert tau_ap_symmetric(scores, scores) == pytest.approx(1.0)


def test_two_items():
    assert tau_ap([1, 0], [5, 2]) == pytest.approx(1.0)
    assert tau_ap([1, 0], [2, 5]) == pytest.approx(-1.0)


def test_all_tied_or_single_item_is_undefined():
    assert tau_ap([1, 1, 1], [3, 2, 1]) is None
    assert tau_ap([3, 2, 1], [0, 0, 0]) is None
    assert tau_ap([1], [1]) is None
    assert tau_ap_symmetric([1, 1], [1, 2]) is None


def test_it_is_not_symmetric():
    # Items w, x, y, z. By a: w, x, y, z; by b: y, w, x, z (Kendall tau 1/3 either way).
    a, b = [4, 3, 2, 1], [3, 2, 4, 1]
    # a's list against b: C = 1 (w above x), 0 (y is b's first), 3: 2/3 * (1 + 0 + 1) - 1.
    assert tau_ap(a, b) == pytest.approx(1 / 3)
    # b's list y, w, x, z against a: C = 0, 1 (of y, w only w), 3: 2/3 * (0 + 1/2 + 1) - 1.
    assert tau_ap(b, a) == pytest.approx(0.0)
    assert tau_ap_symmetric(a, b) == pytest.approx(1 / 6)


def test_without_ties_it_is_the_papers_formula():
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(2, 9))
        scores, truth = rng.permutation(n).astype(float), rng.permutation(n).astype(float)
        order = list(np.argsort(-scores))
        truth_position = {int(i): p for p, i in enumerate(np.argsort(-truth))}
        assert tau_ap(scores, truth) == pytest.approx(paper_tau_ap(order, truth_position))


def test_ties_are_the_expected_value_over_every_tie_break():
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(150):
        n = int(rng.integers(2, 6))
        scores = rng.integers(0, 3, n).astype(float).tolist()
        truth = rng.integers(0, 3, n).astype(float).tolist()
        value = tau_ap(scores, truth)
        if value is None:
            continue
        assert value == pytest.approx(expected_by_enumeration(scores, truth))
        checked += 1
    assert checked > 50


def test_the_batch_form_is_the_single_one_column_by_column():
    rng = np.random.default_rng(9)
    for n in (2, 3, 6, 12):
        scores = rng.integers(0, 3, (n, 200)).astype(float)
        truth = rng.integers(0, 3, (n, 200)).astype(float)
        scores[:, :80] = rng.random((n, 80))  # some columns without ties
        batch = tau_ap_columns(scores, truth)
        for c in range(200):
            single = tau_ap(scores[:, c], truth[:, c])
            if single is None:
                assert np.isnan(batch[c])
            else:
                assert batch[c] == pytest.approx(single)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="one length"):
        tau_ap([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="NaN"):
        tau_ap([1, np.nan], [1, 2])
