"""LLM-retEval's pure method: retrieval scores, verdict aggregation, pre-label rules, Spearman
and the per-k summary, on hand-computed cases."""

import pytest
from scipy.stats import spearmanr

from evaluation.reteval.method.verdicts import (
    CATEGORIES,
    PrelabelInput,
    QuestionOutcome,
    RetrievedPassage,
    aggregate_verdicts,
    disagrees,
    prelabel,
    retrieval_scores,
    spearman,
    summarise,
    word_overlap,
)


def test_retrieval_scores_by_hand():
    rankings = {"q1": ["g1", "x", "y"], "q2": ["x", "y", "g2"], 7: ["a", "g3"]}
    gold = {"q1": {"g1"}, "q2": {"g2", "g2b"}, 7: {"g3"}}
    at1 = retrieval_scores(rankings, gold, 1)
    assert (at1["q1"].recall, at1["q1"].precision, at1["q1"].f1) == (1.0, 1.0, 1.0)
    assert (at1["q2"].recall, at1["q2"].precision, at1["q2"].f1) == (0.0, 0.0, 0.0)
    assert at1[7].recall == 0.0  # ids need not be strings
    at3 = retrieval_scores(rankings, gold, 3)
    # q2: one of two gold passages in the top 3: R = 1/2, P = 1/3, F1 = 2PR/(P+R) = 0.4
    assert at3["q2"].recall == pytest.approx(0.5)
    assert at3["q2"].precision == pytest.approx(1 / 3)
    assert at3["q2"].f1 == pytest.approx(0.4)
    assert at3["q1"].gold_retrieved and not at1["q2"].gold_retrieved


def test_precision_divides_by_k_even_for_short_rankings():
    scores = retrieval_scores({"q": ["g"]}, {"q": {"g"}}, 5)
    assert (scores["q"].recall, scores["q"].precision) == (1.0, pytest.approx(0.2))


def test_an_empty_ranking_scores_zero():
    scores = retrieval_scores({"q": []}, {"q": {"g"}}, 3)
    assert (scores["q"].recall, scores["q"].precision, scores["q"].f1) == (0.0, 0.0, 0.0)


def test_retrieval_scores_reject_bad_input():
    with pytest.raises(ValueError, match="question 'q' has no gold passage"):
        retrieval_scores({"q": ["a"]}, {"q": set()}, 1)
    with pytest.raises(ValueError, match="lists a passage twice"):
        retrieval_scores({"q": ["a", "a"]}, {"q": {"a"}}, 1)
    with pytest.raises(ValueError, match="k must be >= 1"):
        retrieval_scores({"q": ["a"]}, {"q": {"a"}}, 0)


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([False, True, None], True),  # any Yes
        ([False, False, False], False),
        ([False, None, False], None),  # an unreadable comparison might have been a Yes
        ([], None),
    ],
)
def test_aggregate_verdicts(verdicts, expected):
    assert aggregate_verdicts(verdicts) is expected


def test_disagreement_needs_a_verdict():
    assert disagrees(0.0, True) and disagrees(0.5, False)
    assert not disagrees(1.0, True) and not disagrees(0.0, False) and not disagrees(0.0, None)


def test_word_overlap():
    assert word_overlap("The cat sat.", "cat sat") == 1.0
    assert word_overlap("x b", "b c") == pytest.approx(1 / 3)
    assert word_overlap("a b", "b c") == 0.5  # articles are dropped
    assert word_overlap("", "") == 0.0


GOLD_TEXT = "As of 2017, the prize has been awarded to 206 individuals since 1901."
OTHER_VERSION = "As of 2016, the prize has been awarded to 206 individuals since 1901."


def _case(**kw):
    base = dict(
        recall=0.0,
        verdict=True,
        rag_answer="Wilhelm Röntgen",
        semi_gold_answers=("Röntgen",),
        gold_answers=("Röntgen",),
        retrieved=(RetrievedPassage("Röntgen won it first.", False),),
        gold_passages=(GOLD_TEXT,),
    )
    return PrelabelInput(**(base | kw))


def test_no_prelabel_where_recall_and_verdict_agree():
    assert prelabel(_case(recall=1.0, verdict=True)) is None
    assert prelabel(_case(recall=0.0, verdict=False)) is None
    assert prelabel(_case(verdict=None)) is None


def test_recall_miss_with_a_yes_is_a_or_b():
    assert prelabel(_case()).category == "A"
    label = prelabel(_case(retrieved=(RetrievedPassage(OTHER_VERSION, False),)))
    assert label.category == "B"
    assert "gold passage" in label.reason


def test_recall_miss_with_a_wrong_yes_is_d_or_f():
    # The RAG answer has no gold answer in it: the judge's Yes is wrong.
    assert prelabel(_case(rag_answer="Marie Curie")).category == "F"
    # No semi-gold answer is right: the generator fails on the gold passages.
    assert prelabel(_case(semi_gold_answers=("Marie Curie",))).category == "D"


def test_recall_hit_with_a_no():
    hit = dict(
        recall=1.0,
        verdict=False,
        retrieved=(RetrievedPassage(GOLD_TEXT, True), RetrievedPassage("Horn of Africa", False)),
    )
    # Distracted by the non-gold passage.
    assert prelabel(_case(rag_answer="Horn of Africa", **hit)).category == "C"
    # Only gold passages retrieved: the generator itself fails on them.
    only_gold = hit | {"retrieved": (RetrievedPassage(GOLD_TEXT, True),)}
    assert prelabel(_case(rag_answer="Horn of Africa", **only_gold)).category == "D"
    # The RAG answer gives a valid answer the semi-gold answers miss.
    two = dict(gold_answers=("Peter Hansen", "Ross Elliott"), semi_gold_answers=("Peter Hansen",))
    label = prelabel(_case(rag_answer="Ross Elliott", **hit, **two))
    assert (label.category, label.reason) == (
        "E",
        "the RAG answer gives Ross Elliott, which no semi-gold answer gives",
    )
    # Both give the same gold answer, yet the judge said No.
    assert prelabel(_case(rag_answer="Röntgen", **hit)).category == "F"


def test_unknown_gold_answers_skip_the_answer_rules():
    assert prelabel(_case(gold_answers=(), rag_answer="anything")).category == "A"
    hit = dict(recall=1.0, verdict=False, gold_answers=())
    assert prelabel(_case(**hit)).category == "C"


def test_spearman_matches_scipy_and_is_undefined_when_constant():
    verdicts, recall = [1, 0, 1, 1, 0], [1.0, 0.0, 0.5, 0.0, 0.5]
    result = spearman(verdicts, recall)
    assert result.rho == pytest.approx(spearmanr(verdicts, recall).statistic)
    assert result.n == 5 and result.reason is None
    constant = spearman([1, 1, 1], [0.0, 1.0, 0.5])
    assert constant.rho is None and "LLM-retEval constant" in constant.reason
    assert spearman([1], [1.0]).reason == "fewer than 2 questions with a verdict"
    with pytest.raises(ValueError, match="paired values"):
        spearman([1, 0], [1.0])


def test_summarise_reproduces_the_tables():
    outcomes = [
        QuestionOutcome(1.0, 0.2, 1 / 3, True, "", True),
        QuestionOutcome(0.0, 0.0, 0.0, True, "A", True),  # recall failure
        QuestionOutcome(1.0, 0.2, 1 / 3, False, "C", False),  # recall failure
        QuestionOutcome(1.0, 0.2, 1 / 3, False, "F", None),  # LLM-retEval failure
        QuestionOutcome(0.0, 0.0, 0.0, False, "", False),
        QuestionOutcome(1.0, 0.2, 1 / 3, None, "", None),  # unparsable judge output
    ]
    s = summarise(5, outcomes)
    assert (s.k, s.n_questions, s.undefined_verdicts) == (5, 6, 1)
    assert s.recall == pytest.approx(4 / 6)
    assert s.precision == pytest.approx(0.8 / 6)
    assert s.reteval == pytest.approx(2 / 5)
    assert s.answer_accuracy == pytest.approx(2 / 4)
    assert (s.disagreements, s.recall_failures, s.reteval_failures) == (3, 2, 1)
    assert s.categories == {"A": 1, "B": 0, "C": 1, "D": 0, "E": 0, "F": 1}
    all_v, all_r = [1, 1, 0, 0, 0], [1.0, 0.0, 1.0, 1.0, 0.0]
    assert s.spearman_all.rho == pytest.approx(spearmanr(all_v, all_r).statistic)
    # Refined leaves out A and C: verdicts [1, 0, 0] vs recall [1, 1, 0].
    assert s.spearman_refined.n == 3
    assert s.spearman_refined.rho == pytest.approx(spearmanr([1, 0, 0], [1, 1, 0]).statistic)


def test_summarise_nothing():
    s = summarise(1, [])
    assert s.recall is None and s.reteval is None and s.n_questions == 0
    assert s.spearman_all.rho is None and s.spearman_all.n == 0
    assert tuple(s.categories) == CATEGORIES
