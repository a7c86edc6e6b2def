"""Answer scores, S_eff and the BM25 index that SCAAR's queries run against."""

import pytest

from evaluation.scaar.method.bm25 import Bm25Index, terms
from evaluation.scaar.method.efficiency import answer_score, retrieval_efficiency, token_f1


def test_token_f1_is_the_best_squad_f1_over_the_golds():
    # "capital is paris" vs "paris": precision 1/3, recall 1, F1 = 2 * (1/3) / (4/3) = 0.5.
    assert token_f1("The capital is Paris.", ["Paris"]) == pytest.approx(0.5)
    assert token_f1("Paris", ["London", "paris"]) == 1.0
    assert token_f1("nothing shared", ["Paris"]) == 0.0
    assert token_f1("Paris", []) == 0.0


def test_answer_score_supports_f1_and_exact_match():
    assert answer_score("the Paris", ["Paris"], "em") == 1.0
    assert answer_score("in Paris", ["Paris"], "em") == 0.0
    with pytest.raises(ValueError, match="'f1' or 'em'"):
        answer_score("x", ["x"], "bleu")


def test_retrieval_efficiency_is_mean_gain_over_mean_retrievals():
    # Mean Delta S 0.3 over mean N_R 1.5.
    assert retrieval_efficiency([0.6, 0.0, 0.2, 0.4], [2, 2, 1, 1]) == pytest.approx(0.2)
    assert retrieval_efficiency([0.2, -0.4], [1, 1]) == pytest.approx(-0.1)
    assert retrieval_efficiency([0.0, 0.0], [0, 0]) is None
    assert retrieval_efficiency([], []) is None
    with pytest.raises(ValueError, match="2 score deltas but 1 retrieval counts"):
        retrieval_efficiency([0.1, 0.2], [1])


def test_bm25_ranks_the_passages_sharing_rare_query_terms_first():
    index = Bm25Index(
        ["p1", "p2", "p3", "p4"],
        [
            "Mercury completes one orbit in 88 days.",
            "Jupiter takes twelve years to orbit the Sun.",
            "Plants absorb carbon dioxide.",
            "Neptune is the outermost planet.",
        ],
    )
    hits = index.search("Mercury: an orbit of days?", k=3)
    # "orbit" is in half of the passages: Okapi's idf ln((4 - 2 + 0.5) / (2 + 0.5)) is 0, so
    # p2, which shares only that term, scores 0 and is not returned.
    assert [h.key for h in hits] == ["p1"]
    assert all(h.score > 0 for h in hits)
    assert [h.key for h in index.search("carbon dioxide plants", k=5)] == ["p3"]
    assert index.search("!!!", k=3) == []
    assert terms("It's 88 Days!") == ["it", "s", "88", "days"]


def test_bm25_edge_cases():
    assert Bm25Index([], []).search("anything", 3) == []
    with pytest.raises(ValueError, match="k must be at least 1"):
        Bm25Index(["a"], ["text"]).search("text", 0)
    with pytest.raises(ValueError, match="2 keys but 1 texts"):
        Bm25Index(["a", "b"], ["text"])
