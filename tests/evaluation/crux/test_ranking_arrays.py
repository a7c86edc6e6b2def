"""The vectorised ranking metrics (``ranking_arrays``) against ``ranking_metrics``
(pytrec_eval through ir_measures): equal to the last bit on random rankings, and by hand."""

import math

import numpy as np
import pytest

from evaluation.crux.method.ranking import ranking_arrays, ranking_metrics


def _random_topics(rng, n_topics):
    qrels, run = {}, {}
    ranked = np.zeros((n_topics, 70), np.int64)
    grades = np.zeros((n_topics, 40), np.int64)
    for t in range(n_topics):
        docs = rng.permutation(90)[: rng.integers(0, 70)]  # some rankings are empty
        judged = rng.permutation(90)[: rng.integers(0, 40)]
        g = {f"d{d}": int(rng.integers(-1, 4)) for d in judged}  # -1: judged, negative
        qrels[f"q{t}"], run[f"q{t}"] = g, [f"d{d}" for d in docs]
        ranked[t, : len(docs)] = [g.get(f"d{d}", 0) for d in docs]
        grades[t, : len(g)] = list(g.values())
    return qrels, run, ranked, grades


@pytest.mark.parametrize("min_relevance", [1, 2, 3])
def test_equal_to_pytrec_eval_bit_for_bit(min_relevance):
    rng = np.random.default_rng(min_relevance)
    n_topics = 300
    qrels, run, ranked, grades = _random_topics(rng, n_topics)
    k = rng.integers(0, 30, n_topics)  # a different cutoff per topic; 0: no cutoff at all
    got = ranking_arrays(ranked, grades, k, min_relevance)
    names = {"ndcg": "nDCG@{k}", "ap": "MAP", "recall": "R@{k}", "rprec": "R-Prec"}
    numbers = 0
    for t in range(n_topics):
        qid = f"q{t}"
        for field, name in names.items():
            value = getattr(got, field)[t]
            if k[t] < 1:
                assert math.isnan(value)
                continue
            expected = ranking_metrics(qrels, {qid: run[qid]}, (int(k[t]),), min_relevance)
            want = expected.per_topic[qid][name.format(k=k[t])]
            if want is None:
                assert math.isnan(value)
            else:
                assert value == want, (t, field)  # exact: the same sums in the same order
                numbers += 1
    assert numbers > 300


def test_by_hand():
    # Ranked grades 3, 0, 1, (unjudged) and qrels {3, 1, 2}; k = 2, relevant: grade >= 1.
    got = ranking_arrays(np.array([[3, 0, 1, 0]]), np.array([[3, 1, 2]]), np.array([2]))
    dcg = 3 / math.log2(2)
    ideal = 3 / math.log2(2) + 2 / math.log2(3)
    assert got.ndcg[0] == pytest.approx(dcg / ideal)
    assert got.ap[0] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert got.recall[0] == pytest.approx(1 / 3)
    assert got.rprec[0] == pytest.approx(2 / 3)


def test_no_relevant_passage_is_undefined_not_zero():
    got = ranking_arrays(np.array([[0, 0], [1, 0]]), np.array([[0, 0], [1, 0]]), np.array([2, 2]))
    assert math.isnan(got.ndcg[0]) and math.isnan(got.ap[0]) and math.isnan(got.rprec[0])
    assert got.ndcg[1] == 1.0 and got.ap[1] == 1.0


def test_min_relevance_must_be_positive():
    with pytest.raises(ValueError, match="min_relevance"):
        ranking_arrays(np.zeros((1, 1)), np.zeros((1, 1)), np.array([1]), 0)
