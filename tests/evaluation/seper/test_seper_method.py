"""SePer maths on hand-made weights, kernels and NLI label matrices (METHODS section 2)."""

import math

import numpy as np
import pytest

from evaluation.seper.method.scores import (
    DeltaSeper,
    build_clusters,
    gold_masses,
    response_scores,
    response_weights,
    score_responses,
    seper_hard,
    seper_soft,
)

E, N, C = (0.9, 0.05, 0.05), (0.1, 0.8, 0.1), (0.05, 0.15, 0.8)  # argmax: ent., neu., contr.


def authors_reshape(kernel: np.ndarray) -> np.ndarray:
    """What the authors' code does with a (N, m) kernel: it lays the pairs out gold-major
    (all responses for gold 0, then gold 1, ...) and reads them back with
    ``reshape(n_responses, -1)`` as if they were response-major."""
    n = kernel.shape[0]
    return kernel.T.flatten().reshape(n, -1)


def test_weights_are_the_softmax_of_mean_token_logprobs():
    scores = response_scores([[-1.0, -3.0], [-2.0 + math.log(2)], [-2.0]])
    np.testing.assert_allclose(scores, [-2.0, -2.0 + math.log(2), -2.0])
    # exp(s) is proportional to 1 : 2 : 1.
    np.testing.assert_allclose(response_weights(scores), [0.25, 0.5, 0.25])
    # Softmax ignores a common shift: only the differences of mean log-probs matter.
    np.testing.assert_allclose(response_weights(scores - 7.0), [0.25, 0.5, 0.25])


def test_a_response_without_tokens_gets_the_lowest_score_not_probability_one():
    scores = response_scores([[-0.5], [], [-2.0, -1.0]])
    np.testing.assert_allclose(scores, [-0.5, -1.5, -1.5])
    weights = response_weights(scores)
    assert weights[1] == pytest.approx(weights[2]) and weights[1] < weights[0]


def test_all_responses_without_tokens_weigh_the_same():
    np.testing.assert_allclose(response_weights(response_scores([[], [], [], []])), [0.25] * 4)


def test_scores_reject_impossible_logprobs_and_no_responses():
    with pytest.raises(ValueError, match="<= 0"):
        response_scores([[0.5]])
    with pytest.raises(ValueError, match="at least one"):
        response_scores([])


def test_seper_soft_by_hand_one_gold():
    w = np.array([0.5, 0.3, 0.2])
    kernel = np.array([[0.9], [0.2], [0.6]])
    # 0.5 * 0.9 + 0.3 * 0.2 + 0.2 * 0.6
    assert seper_soft(w, kernel) == pytest.approx(0.63)


def test_seper_soft_two_golds_pairs_each_weight_with_its_own_response():
    w = np.array([0.5, 0.3, 0.2])
    kernel = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.3]])
    # gold 0: .45 + .06 + .12 = .63; gold 1: .05 + .24 + .06 = .35
    np.testing.assert_allclose(gold_masses(w, kernel), [0.63, 0.35])
    assert seper_soft(w, kernel) == pytest.approx(0.63)
    # The authors' reshape gives [[.9, .2], [.6, .1], [.8, .3]]: masses .79 and .19, so 0.79.
    np.testing.assert_allclose(authors_reshape(kernel), [[0.9, 0.2], [0.6, 0.1], [0.8, 0.3]])
    assert seper_soft(w, authors_reshape(kernel)) == pytest.approx(0.79)


def test_seper_soft_three_golds_pairs_each_weight_with_its_own_response():
    w = np.array([0.7, 0.3])
    kernel = np.array([[0.9, 0.1, 0.0], [0.2, 0.3, 0.8]])
    # gold 0: .63 + .06 = .69; gold 1: .07 + .09 = .16; gold 2: 0 + .24 = .24
    np.testing.assert_allclose(gold_masses(w, kernel), [0.69, 0.16, 0.24])
    assert seper_soft(w, kernel) == pytest.approx(0.69)
    # Buggy layout [[.9, .2, .1], [.3, 0, .8]]: masses .72, .14, .31, so it would say 0.72.
    assert seper_soft(w, authors_reshape(kernel)) == pytest.approx(0.72)


def test_seper_soft_checks_its_inputs():
    with pytest.raises(ValueError, match="sum to 1"):
        seper_soft(np.array([0.5, 0.6]), np.ones((2, 1)))
    with pytest.raises(ValueError, match=r"\(responses, golds\)"):
        seper_soft(np.array([0.5, 0.5]), np.ones((3, 1)))
    with pytest.raises(ValueError, match=r"m >= 1"):
        seper_soft(np.array([1.0]), np.ones((1, 0)))


def _probs(rows):
    return np.array(rows, dtype=np.float64)


def test_score_responses_by_hand_soft_and_hard():
    # Responses: 0 "Paris", 1 "Paris, France", 2 "Lyon"; one gold "Paris".
    w = np.array([0.5, 0.3, 0.2])
    response_gold = _probs([[E], [N], [C]])  # r_i => gold
    gold_response = _probs([[E], [E], [C]])  # gold => r_i
    response_response = _probs(
        [
            [E, E, C],
            [E, E, C],
            [C, C, E],
        ]
    )
    score = score_responses(w, response_gold, gold_response, response_response)
    # k = max of the two entailment probabilities: .9, max(.1, .9) = .9, .05
    np.testing.assert_allclose(score.kernel[:, 0], [0.9, 0.9, 0.05])
    assert score.soft == pytest.approx(0.5 * 0.9 + 0.3 * 0.9 + 0.2 * 0.05)
    assert [c.members for c in score.clusters] == [(0, 1), (2,)]
    assert [c.mass for c in score.clusters] == pytest.approx([0.8, 0.2])
    assert [c.matches_gold for c in score.clusters] == [True, False]
    assert score.hard == pytest.approx(0.8)


def test_hard_matching_with_several_golds_looks_at_each_clusters_own_labels():
    # Three singleton clusters (responses contradict each other); golds: "Paris", "City of Light".
    w = np.array([0.5, 0.3, 0.2])
    # Only response 1 matches, and only gold 0: entailment one way, neutral back (loose match).
    response_gold = _probs([[C, C], [E, C], [C, C]])
    gold_response = _probs([[C, C], [N, C], [C, C]])
    response_response = _probs([[E, C, C], [C, E, C], [C, C, E]])
    score = score_responses(w, response_gold, gold_response, response_response)
    assert [c.matched_golds for c in score.clusters] == [(), (0,), ()]
    assert score.hard == pytest.approx(0.3)
    # The authors' code reads the (cluster, gold) match flags gold-major as cluster-major:
    # [[F, F], [T, F], [F, F]] becomes [[F, T], [F, F], [F, F]], crediting cluster 0 (0.5).
    match = np.array([[False, False], [True, False], [False, False]])
    buggy = authors_reshape(match)
    wrong = build_clusters(w, [[0], [1], [2]], buggy)
    assert seper_hard(wrong) == pytest.approx(0.5) != score.hard


def test_loose_match_needs_more_than_neutral_both_ways():
    w = np.array([1.0])
    rr = _probs([[E]])
    for forward, backward, expected in [
        (E, E, True),
        (E, N, True),
        (N, E, True),
        (N, N, False),
        (E, C, False),
        (C, E, False),
        (N, C, False),
    ]:
        score = score_responses(w, _probs([[forward]]), _probs([[backward]]), rr)
        assert score.hard == (1.0 if expected else 0.0), (forward, backward)


def test_one_response():
    score = score_responses(np.array([1.0]), _probs([[N]]), _probs([[E]]), _probs([[E]]))
    assert score.soft == pytest.approx(0.9)
    assert [c.members for c in score.clusters] == [(0,)]
    assert score.hard == pytest.approx(1.0)


def test_identical_responses_form_one_cluster_holding_all_the_mass():
    w = response_weights([-0.2, -0.9, -1.5, -0.4])
    rr = np.tile(_probs(E), (4, 4, 1))
    score = score_responses(w, np.tile(_probs(E), (4, 1, 1)), np.tile(_probs(N), (4, 1, 1)), rr)
    assert [c.members for c in score.clusters] == [(0, 1, 2, 3)]
    assert score.hard == pytest.approx(1.0)
    assert score.soft == pytest.approx(0.9)


def test_equal_weights_make_seper_soft_the_mean_kernel_of_the_best_gold():
    w = response_weights([-1.3] * 4)
    np.testing.assert_allclose(w, [0.25] * 4)
    kernel = np.array([[0.2, 1.0], [0.4, 0.0], [0.6, 0.0], [0.8, 0.0]])
    assert seper_soft(w, kernel) == pytest.approx(0.5)  # gold 0: mean .5 > gold 1: .25


def test_delta_seper_sign_follows_the_belief_shift():
    rr = _probs([[E, C], [C, E]])
    w = np.array([0.5, 0.5])
    baseline = score_responses(w, _probs([[C], [N]]), _probs([[C], [N]]), rr)
    helped = score_responses(w, _probs([[E], [E]]), _probs([[E], [E]]), rr)
    delta = DeltaSeper.between(helped, baseline)
    assert delta.soft == pytest.approx(0.9 - 0.5 * 0.05 - 0.5 * 0.1) and delta.soft > 0
    assert delta.hard == pytest.approx(1.0)
    hurt = DeltaSeper.between(baseline, helped)
    assert hurt.soft < 0 and hurt.hard == pytest.approx(-1.0)
    same = DeltaSeper.between(baseline, baseline)
    assert same.soft == 0.0 and same.hard == 0.0


def test_score_responses_rejects_mismatched_shapes():
    w = np.array([0.5, 0.5])
    with pytest.raises(ValueError, match=r"\(2, m, 3\)"):
        score_responses(w, _probs([[E]]), _probs([[E]]), _probs([[E, E], [E, E]]))
    with pytest.raises(ValueError, match=r"\(2, 2, 3\)"):
        score_responses(w, _probs([[E], [E]]), _probs([[E], [E]]), _probs([[E]]))
    with pytest.raises(ValueError, match="last axis of 3"):
        score_responses(w, np.ones((2, 1, 2)), np.ones((2, 1, 2)), np.ones((2, 2, 2)))
