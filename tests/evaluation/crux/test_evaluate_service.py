"""The evaluation service on a hand-made collection (see evaluate_collection.py for the data).

tau = 3 throughout. A(ta) = {q0, q1}, O(ta) = {p0, p1}; A(tb) = {q0}, O(tb) = {b0}; A(tc) is
empty. alpha-nDCG's ideal ranking of ta: p2 (q0, ties go to the last row), then p1 (q1):
ideal DCG@2 = 1 + 1/log2(3).
"""

import math

import numpy as np
import pytest

from crux_app import data_version
from crux_app.inputs import EvaluationInputError
from crux_app.models import Judgment, Passage, PassageQrel
from evaluation.crux.evaluate import EvaluationParams, evaluate
from evaluation.crux.token_counts import WHITESPACE
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_run,
    make_topic,
    rate_passages,
)
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db
IDEAL2 = 1 + 1 / math.log2(3)


def run_eval(collection, **params):
    params.setdefault("tokenizer", WHITESPACE)
    evaluation = evaluate(collection, EvaluationParams(**params))
    return evaluation, {r["run"]: r for r in evaluation.records()}


def topic_values(evaluation, run_name, metric):
    run = next(r for r in evaluation.runs if r.name == run_name)
    return dict(zip(evaluation.topic_names, run.values[metric].tolist(), strict=True))


def test_coverage_missing_and_undefined_topics_at_k2():
    hand = make_hand_collection()
    evaluation, records = run_eval(hand.collection, k=2)
    # r1 ta: top-2 = p2 (answers q0), p4 (unjudged on q0 and q1): q1 hinges on p4 -> undefined;
    # missing = (p4, q0) + (p4, q1) = 2. tb: b0 answers q0 -> 1. tc: A empty -> undefined.
    r1 = topic_values(evaluation, "r1", "coverage")
    assert math.isnan(r1["ta"]) and r1["tb"] == 1.0 and math.isnan(r1["tc"])
    assert records["r1"]["coverage"] == 1.0
    assert records["r1"]["missing_judgments"] == 2
    assert records["r1"]["topics"] == {
        "evaluated": 3,
        "undefined_coverage": 2,
        "unjudged_oracle": 0,
        "computed_oracle": 0,
        "not_ranked": 0,
    }
    # r2 ta: p0 answers q0, p1 answers q1 -> 1; tb not ranked -> empty context -> 0.
    assert topic_values(evaluation, "r2", "coverage")["tb"] == 0.0
    assert records["r2"]["coverage"] == 0.5
    assert records["r2"]["missing_judgments"] == 0
    assert records["r2"]["topics"]["not_ranked"] == 1
    # An empty run covers nothing where A is non-empty; tc stays undefined.
    assert records["empty"]["coverage"] == 0.0
    assert records["empty"]["topics"]["not_ranked"] == 3
    reason = next(r for r in evaluation.runs if r.name == "r1").reasons
    assert reason[2] == "no answerable sub-question (A is empty)"


def test_missing_as_zero_gives_the_lower_bound():
    hand = make_hand_collection()
    _, records = run_eval(hand.collection, k=2, missing_as_zero=True)
    # r1 ta: only q0 covered -> 1/2; tb 1 -> mean 0.75. The missing count is still reported.
    assert records["r1"]["coverage"] == 0.75
    assert records["r1"]["missing_judgments"] == 2


def test_k_larger_than_the_run_and_the_other_topics_passage():
    hand = make_hand_collection()
    evaluation, records = run_eval(hand.collection, k=10)
    # r1 ta: p2 covers q0, p1 covers q1: defined although p4 is unjudged (still counted);
    # x0 is another topic's passage: rating 0, not missing.
    assert topic_values(evaluation, "r1", "coverage")["ta"] == 1.0
    assert records["r1"]["missing_judgments"] == 2
    assert records["r1"]["coverage"] == 1.0
    # r2 ranks 3 passages of ta: same coverage as at k=2.
    assert topic_values(evaluation, "r2", "coverage")["ta"] == 1.0


def test_alpha_ndcg_by_hand():
    hand = make_hand_collection()
    evaluation, records = run_eval(hand.collection, k=2)
    r1 = topic_values(evaluation, "r1", "alpha_ndcg")
    # ta [p2, p4]: gain 1 at rank 1 (p4 unjudged: not relevant). tb [b1, b0]: b0 at rank 2.
    assert r1["ta"] == pytest.approx(1 / IDEAL2)
    assert r1["tb"] == pytest.approx(1 / math.log2(3))
    assert math.isnan(r1["tc"])
    assert records["r1"]["alpha_ndcg"] == pytest.approx((1 / IDEAL2 + 1 / math.log2(3)) / 2)
    # r2 ta [p0, p1]: gains 1, 1 = the ideal.
    assert topic_values(evaluation, "r2", "alpha_ndcg")["ta"] == pytest.approx(1.0)


def test_density_by_hand():
    hand = make_hand_collection()
    evaluation, records = run_eval(hand.collection, k=10)
    # r2 ta: covers 2 in p0 + p1 + p3 = 15 tokens; oracle 2 / (4 + 6) = 0.2.
    r2 = topic_values(evaluation, "r2", "density")
    assert r2["ta"] == pytest.approx(2 / 15)
    assert topic_values(evaluation, "r2", "density_norm")["ta"] == pytest.approx(
        ((2 / 15) / 0.2) ** 0.5
    )
    # tb is not ranked by r2: an empty context has no density (0 / 0).
    assert math.isnan(r2["tb"])
    # r1 tb: 1 covered in b1 + b0 = 10 tokens; oracle 1 / 3.
    assert topic_values(evaluation, "r1", "density_norm")["tb"] == pytest.approx(0.3**0.5)
    # r1 ta: 2 covered in p2 + p4 + p1 + x0 = 26 tokens (x0 counts though rated 0).
    assert topic_values(evaluation, "r1", "density")["ta"] == pytest.approx(2 / 26)
    assert records["r1"]["density"] == pytest.approx((2 / 26 + 0.1) / 2)


def test_token_counts_are_cached_per_tokenizer():
    hand = make_hand_collection()
    run_eval(hand.collection, k=10)
    p2 = Passage.objects.get(pk=hand.passages["p2"].pk)
    assert (p2.token_count, p2.token_count_tokenizer) == (10, WHITESPACE)
    # A cached count is read back, not recomputed: a planted value shows through.
    Passage.objects.filter(pk=p2.pk).update(token_count=20)
    evaluation, _ = run_eval(hand.collection, k=10)
    assert topic_values(evaluation, "r1", "density")["ta"] == pytest.approx(2 / 36)


def test_ranking_metrics_by_hand():
    hand = make_hand_collection()
    evaluation, records = run_eval(hand.collection, k=2)
    # r2 ta [p0, p1, p3] vs qrels p0 3, p1 3, p2 1: nDCG@2 = 1, R@2 = 2/3, AP = 2/3,
    # R-Prec = 2/3. tb not ranked: 0. tc [c0]: all 1.
    assert topic_values(evaluation, "r2", "ndcg") == pytest.approx(
        {"ta": 1.0, "tb": 0.0, "tc": 1.0}
    )
    assert topic_values(evaluation, "r2", "recall")["ta"] == pytest.approx(2 / 3)
    assert records["r2"]["map"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert records["r2"]["rprec"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    # Raising the relevance bar to grade 3 drops p2 from the relevant set: R@2 of ta = 1.
    evaluation, _ = run_eval(hand.collection, k=2, min_relevance=3)
    assert topic_values(evaluation, "r2", "recall")["ta"] == pytest.approx(1.0)


def test_k_oracle_uses_the_size_of_O():
    hand = make_hand_collection()
    evaluation, records = run_eval(hand.collection, k="oracle")
    # |O(ta)| = 2: same contexts as k = 2 for ta; |O(tb)| = 1: r1's top-1 is b1 -> 0.
    assert topic_values(evaluation, "r1", "coverage")["tb"] == 0.0
    assert topic_values(evaluation, "r2", "coverage")["ta"] == 1.0
    assert records["r1"]["missing_judgments"] == 2


def test_report_coverage_per_system():
    hand = make_hand_collection()
    evaluation, _ = run_eval(hand.collection, k=2)
    reports = {(r["system"], r["judge"]): r for r in evaluation.report_records()}
    # Binary labels: 1 answers. r1 answers q0, q1 -> 1; r2 answers q0 and q2 (not in A) -> 1/2.
    assert reports[("r1", "human-1")]["coverage"] == 1.0
    assert reports[("r2", "human-1")]["coverage"] == 0.5
    assert reports[("r2", "human-1")]["threshold"] == 1.0
    assert reports[("r2", "human-1")]["topics"] == {"with_report": 1, "undefined_coverage": 0}


def test_another_judge_and_a_qrels_source_change_the_values():
    hand = make_hand_collection()
    # The human rated p0 q0 = 1 and p1 q1 = 2: nothing of O answers -> A empty everywhere.
    _, records = run_eval(hand.collection, k=2, judge="human-1")
    assert records["r2"]["coverage"] is None
    assert records["r2"]["topics"]["undefined_coverage"] == 3
    # A second qrels source with more rows becomes the default.
    big = [("ta", p) for p in ("p0", "p1", "p2", "p3", "p4")] + [("tb", "b1")]
    PassageQrel.objects.bulk_create(
        PassageQrel(topic=hand.topics[t], passage=hand.passages[p], grade=3, source="big")
        for t, p in big
    )
    # A bulk write sends no signal: it names what it touched (crux_app.data_version).
    data_version.bump_topics(hand.topics[t].pk for t, _ in big)
    evaluation, _ = run_eval(hand.collection, k=2)
    assert evaluation.qrels_source == "big"
    # tc has no "big" qrels: its oracle is computed from the judge's ratings (c0 answers
    # nothing, so O and A stay empty).
    assert evaluation.computed_oracle.tolist() == [False, False, True]


def test_computed_oracle_from_the_greedy_required_subset():
    collection = make_collection("noqrels")
    topic = make_topic(collection, "td", n_subquestions=2)
    d0, d1, d2 = make_passages(collection, "td", 3)
    judge = make_judge("llm")
    ratings = {0: [4, 0], 1: [3, 5], 2: [0, 2]}
    rate_passages(judge, topic, [d0, d1, d2], rating=lambda pos, i: ratings[i][pos])
    make_run(collection, "run", topic, [d0, d2])
    evaluation, records = run_eval(collection, k=1)
    # Greedy: d1 answers both questions -> O = {d1}, A = {q0, q1}; grades d1 3, d0 2
    # (4 >= m[0] = 3), d2 1 (0 < 3, 2 < 5). Run top-1 = d0 answers q0 -> coverage 1/2.
    assert evaluation.computed_oracle.tolist() == [True]
    assert records["run"]["coverage"] == 0.5
    assert records["run"]["topics"]["computed_oracle"] == 1
    # Computed grades are the ranking qrels: nDCG@1 = 2 / 3 (ideal gain 3, d0's gain 2).
    assert records["run"]["ndcg"] == pytest.approx(2 / 3)


def test_a_collection_nobody_judged_has_ranking_metrics_only():
    collection = make_collection("unjudged")
    topic = make_topic(collection, "tu", n_subquestions=2)
    u0, u1 = make_passages(collection, "tu", 2)
    make_run(collection, "run", topic, [u1, u0])
    PassageQrel.objects.create(topic=topic, passage=u0, grade=3)
    evaluation, records = run_eval(collection, k=2)
    assert evaluation.judge is None
    record = records["run"]
    # O = {u0} is unjudged: A hinges on it -> coverage undefined; u0 at rank 2: nDCG@2 =
    # (3 / log2 3) / 3.
    assert record["coverage"] is None and record["topics"]["unjudged_oracle"] == 1
    assert record["ndcg"] == pytest.approx(1 / math.log2(3))


def test_an_unparsable_rating_is_unjudged_not_zero():
    hand = make_hand_collection()
    # The LLM's output for (p1, q1) could not be parsed: A(ta) hinges on it now.
    Judgment.objects.filter(
        judge=hand.llm, passage=hand.passages["p1"], subquestion__position=1
    ).update(rating=None)
    evaluation, records = run_eval(hand.collection, k=2, run="r2")
    assert math.isnan(topic_values(evaluation, "r2", "coverage")["ta"])
    assert records["r2"]["topics"]["unjudged_oracle"] == 1
    assert evaluation.runs[0].reasons[0] == (
        "answerability hinges on unjudged ratings of required passages"
    )


def test_a_collection_without_runs_has_no_record():
    collection = make_collection("norun")
    topic = make_topic(collection, "tn", n_subquestions=1)
    rate_passages(make_judge("llm"), topic, make_passages(collection, "tn", 1))
    evaluation, records = run_eval(collection)
    assert records == {} and evaluation.topic_names == ["tn"]


def test_unknown_run_judge_and_source_list_the_existing_ones():
    hand = make_hand_collection()
    with pytest.raises(EvaluationInputError, match=r"run 'nope'.*'empty', 'r1', 'r2'"):
        evaluate(hand.collection, EvaluationParams(run="nope"))
    with pytest.raises(EvaluationInputError, match=r"judge 'nope'.*'llm-judge'"):
        evaluate(hand.collection, EvaluationParams(judge="nope"))
    with pytest.raises(EvaluationInputError, match=r"source 'nope'.*'imported'"):
        evaluate(hand.collection, EvaluationParams(qrels_source="nope"))
    with pytest.raises(EvaluationInputError, match="k must be"):
        EvaluationParams(k=0)


def test_few_queries_whatever_the_number_of_topics(django_assert_max_num_queries):
    hand = make_hand_collection()
    run_eval(hand.collection, k=2)  # counts cached
    with django_assert_max_num_queries(14):
        evaluation, _ = run_eval(hand.collection, k=2)
    assert np.array_equal(evaluation.computed_oracle, [False, False, False])
