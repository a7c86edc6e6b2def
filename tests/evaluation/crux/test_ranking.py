"""nDCG@k, MAP, R@k and R-Prec through ir_measures' pytrec_eval backend."""

import math

import pytest

from evaluation.crux.method.ranking import NO_RELEVANT, measure_names, ranking_metrics

D2 = 1 / math.log2(3)  # discount of rank 2

# Topic q1: a grade 3, b grade 1, c judged non-relevant (0).
QRELS = {"q1": {"a": 3, "b": 1, "c": 0}, "q2": {"x": 2}, "q3": {"z": 0}}


def test_hand_computed_metrics():
    # Run a, c, d (d unjudged): relevant a at rank 1, b never retrieved. R = 2 relevant.
    #   nDCG@10 = 3 / (3 + 1 * D2)  (ideal: a then b)
    #   AP = (1/1) / 2 = 0.5;  R@10 = 1/2;  R-Prec = relevant in top 2 (a, c) / 2 = 0.5
    scores = ranking_metrics(QRELS, {"q1": ["a", "c", "d"]}, cutoffs=(10,))
    q1 = scores.per_topic["q1"]
    assert q1["nDCG@10"] == pytest.approx(3 / (3 + D2))
    assert q1["MAP"] == pytest.approx(0.5)
    assert q1["R@10"] == pytest.approx(0.5)
    assert q1["R-Prec"] == pytest.approx(0.5)


def test_hand_computed_second_ranking_and_several_cutoffs():
    # Run c, b, a: relevant at ranks 2 (b) and 3 (a).
    #   AP = (1/2 + 2/3) / 2 = 7/12
    #   nDCG@2 = (1 * D2) / (3 + 1 * D2);  R@2 = 1/2;  R@3 = 1
    #   R-Prec: top 2 = c, b -> 1/2
    scores = ranking_metrics(QRELS, {"q1": ["c", "b", "a"]}, cutoffs=(2, 3))
    q1 = scores.per_topic["q1"]
    assert q1["MAP"] == pytest.approx(7 / 12)
    assert q1["nDCG@2"] == pytest.approx(D2 / (3 + D2))
    assert q1["R@2"] == pytest.approx(0.5)
    assert q1["R@3"] == pytest.approx(1.0)
    assert q1["R-Prec"] == pytest.approx(0.5)
    assert set(q1) == set(measure_names((2, 3)))


def test_real_rank_order_is_kept():
    # trec_eval would sort equal scores by doc id; the given order must survive:
    # b then a: nDCG@1 = 1/3 (b's gain 1 vs ideal 3); a then b: 1.
    assert ranking_metrics(QRELS, {"q1": ["b", "a"]}, (1,)).per_topic["q1"]["nDCG@1"] == (
        pytest.approx(1 / 3)
    )
    assert ranking_metrics(QRELS, {"q1": ["a", "b"]}, (1,)).per_topic["q1"]["nDCG@1"] == 1.0


def test_k_larger_than_run():
    # Run [a] with k = 100: R@100 = 1/2; nDCG@100 = 3 / (3 + D2) (ideal has both).
    q1 = ranking_metrics(QRELS, {"q1": ["a"]}, (100,)).per_topic["q1"]
    assert q1["R@100"] == pytest.approx(0.5)
    assert q1["nDCG@100"] == pytest.approx(3 / (3 + D2))


def test_empty_run_scores_zero_and_topic_without_relevant_is_undefined():
    scores = ranking_metrics(QRELS, {"q2": [], "q3": ["z"], "q9": ["a"]}, (10,))
    assert scores.per_topic["q2"] == dict.fromkeys(measure_names((10,)), 0.0)
    assert scores.per_topic["q3"] == dict.fromkeys(measure_names((10,)))
    assert scores.reasons == {"q3": NO_RELEVANT, "q9": NO_RELEVANT}


def test_min_relevance_raises_the_bar():
    # With min_relevance 2 only a is relevant (R = 1). Run c, b, a: AP = 1/3, R-Prec (top 1 = c)
    # = 0, R@3 = 1. nDCG still uses the grades as gains: (1 D2 + 3 / log2 4) / (3 + D2).
    q1 = ranking_metrics(QRELS, {"q1": ["c", "b", "a"]}, (3,), min_relevance=2).per_topic["q1"]
    assert q1["MAP"] == pytest.approx(1 / 3)
    assert q1["R-Prec"] == 0.0
    assert q1["R@3"] == 1.0
    assert q1["nDCG@3"] == pytest.approx((D2 + 3 / 2) / (3 + D2))


def test_mean_over_defined_topics():
    scores = ranking_metrics(QRELS, {"q1": ["a", "c", "d"], "q2": ["x"], "q3": []}, (10,))
    # AP: q1 0.5, q2 1.0, q3 undefined -> MAP 0.75 over 2 topics.
    assert scores.mean("MAP") == (pytest.approx(0.75), 2)
    assert ranking_metrics(QRELS, {"q3": []}).mean("MAP") == (None, 0)


def test_bad_inputs():
    with pytest.raises(ValueError, match="lists passage 'a' more than once"):
        ranking_metrics(QRELS, {"q1": ["a", "b", "a"]})
    with pytest.raises(ValueError, match="cutoffs"):
        ranking_metrics(QRELS, {"q1": ["a"]}, cutoffs=(0,))
    with pytest.raises(ValueError, match="min_relevance"):
        ranking_metrics(QRELS, {"q1": ["a"]}, min_relevance=0)
