"""The kernel's per-response decision (method) and its decision on given answers (service)."""

import numpy as np
import pytest

from evaluation.seper.decisions import AnswerToDecide, decide_answers
from evaluation.seper.method.scores import score_responses
from tests.evaluation.seper.seper_doubles import CONTRADICTS, ENTAILS, NEUTRAL, WordNLI

E, N, C = ENTAILS, NEUTRAL, CONTRADICTS


def test_each_response_gets_its_own_decision_not_only_its_clusters_first_member():
    # Responses 0 and 1 entail each other (one cluster); 0 matches the gold, 1 is neutral to
    # it both ways, so the cluster matches while response 1 on its own does not.
    w = np.array([0.6, 0.4])
    response_gold = np.array([[E], [N]])
    gold_response = np.array([[E], [N]])
    response_response = np.array([[E, E], [E, E]])
    score = score_responses(w, response_gold, gold_response, response_response)
    assert [c.members for c in score.clusters] == [(0, 1)]
    assert score.clusters[0].matches_gold
    assert score.response_decisions() == [True, False]
    assert score.to_dict()["response_matches"] == [[True], [False]]


def test_several_golds_a_response_matches_any_of_them():
    w = np.array([0.5, 0.5])
    response_gold = np.array([[C, E], [C, C]])
    gold_response = np.array([[C, N], [C, C]])
    response_response = np.array([[E, C], [C, E]])
    score = score_responses(w, response_gold, gold_response, response_response)
    assert score.response_matches.tolist() == [[False, True], [False, False]]
    assert score.response_decisions() == [True, False]


def test_decide_answers_scores_all_pairs_in_one_call():
    nli = WordNLI()
    items = [
        AnswerToDecide("Who?", ("Jane Austen",), "Jane Austen"),
        AnswerToDecide("Who?", ("Jane Austen",), "Austen"),  # gold entails it: loose match
        AnswerToDecide("Who?", ("Jane Austen",), "Jane Eyre"),  # neutral both ways
        AnswerToDecide("Gas?", ("carbon dioxide", "CO2"), "CO2"),
    ]
    decisions = decide_answers(items, nli)
    assert [d.equivalent for d in decisions] == [True, True, False, True]
    assert decisions[3].matched_golds == [1]
    assert decisions[0].kernel == pytest.approx([0.9])
    assert decisions[2].kernel == pytest.approx([0.2])
    assert len(nli.calls) == 1
    # Questions prefix the pairs: the backend gets one question per pair.
    assert nli.calls[0][1][0] == "Who?"


def test_a_blank_answer_is_refused_with_its_index():
    with pytest.raises(ValueError, match="answer 1: the answer text is blank"):
        decide_answers(
            [AnswerToDecide("Q", ("a",), "a"), AnswerToDecide("Q", ("a",), "  ")], WordNLI()
        )
