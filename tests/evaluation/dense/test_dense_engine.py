"""DENSE end to end on a rule-based generator and a word-overlap NLI judge: every number
below is worked out by hand from the rules in tests/dense/doubles.py."""

import math

import pytest

from evaluation.dense.engine import DenseEngine, DenseQuestion, DenseSettings
from evaluation.dense.method.graph import CERTAIN, NECESSARY, UNNECESSARY
from evaluation.dense.method.prompts import qa_prompt, rephrase_prompt
from tests.evaluation.dense.doubles import RuleGenerator
from tests.evaluation.seper.seper_doubles import WordNLI

C1 = "The capital of France is Paris."
C2 = "Lyon is a big city."
C3 = "Cheese is tasty."
REPHRASES = {
    C1: "The capital is Lyon.",  # an unfaithful rephrase that changes the answer
    C2: "A big city is Lyon.",
    C3: "The capital is Lyon. Tasty is cheese.",
}
QUESTION = "What is the capital of France?"


def engine(**settings):
    generator, nli = RuleGenerator(REPHRASES), WordNLI()
    return DenseEngine(generator, nli, DenseSettings(**settings)), generator, nli


def test_one_question_by_hand():
    dense, generator, _ = engine()
    [result] = dense.evaluate([DenseQuestion("q1", QUESTION, (C1, C2, C3))])
    # C0 -> Paris; C1 (chunk 1 rephrased) -> Lyon; C2 -> Paris; C3 -> Lyon.
    assert result.responses == ["Paris", "Lyon", "Paris", "Lyon"]
    assert result.weights == [
        [1.0, 0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0, 1.0],
        [1.0, 0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0, 1.0],
    ]
    assert result.dse == pytest.approx(math.log(2))
    assert result.uncertain
    # Without chunk 1 nothing names Paris ("unknown"); without chunk 3 the answer stays Paris.
    assert result.ablation_answers == {0: "unknown", 2: "Paris"}
    assert result.labels == [NECESSARY, CERTAIN, UNNECESSARY]
    # Word-overlap NLI: only chunk 2's rephrase uses the same words both ways.
    assert result.rephrase_faithful == [False, True, False]
    assert generator.calls[0] == [rephrase_prompt(c) for c in (C1, C2, C3)]
    assert generator.calls[1][0] == qa_prompt(QUESTION, (C1, C2, C3))


def test_calls_are_batched_across_questions_and_cached():
    dense, generator, nli = engine()
    questions = [
        DenseQuestion("q1", QUESTION, (C1, C2, C3)),
        DenseQuestion("q2", QUESTION, (C2, C3)),
    ]
    results = dense.evaluate(questions)
    assert [r.question.key for r in results] == ["q1", "q2"]
    # rephrase, answers, ablation answers: three generate calls for both questions.
    assert len(generator.calls) == 3
    assert len(generator.calls[0]) == 3  # C2 and C3 are rephrased once
    assert len(nli.calls) == 2
    # q2: C0 = [C2, C3] -> unknown; C1 -> unknown; C2 = [C2, C3'] -> Lyon.
    assert results[1].responses == ["unknown", "unknown", "Lyon"]
    before = dense.counts.llm_inferences
    again = dense.evaluate(questions)
    assert [r.dse for r in again] == [r.dse for r in results]
    assert dense.counts.llm_inferences == before  # everything came from the cache
    assert len(generator.calls) == 3


def test_identical_answers_entail_without_a_call():
    dense, _, nli = engine(check_rephrase=False)
    [result] = dense.evaluate([DenseQuestion("q", QUESTION, (C2,))])
    # C0 = [C2] -> unknown, C1 = [C2'] -> unknown: one identical pair, no NLI call at all.
    assert result.dse == 0.0
    assert result.labels == [CERTAIN]
    assert nli.calls == []
    assert dense.counts.identical_pairs == 4


def test_self_evaluation_reads_yes_and_no():
    dense, generator, _ = engine()
    assert dense.sufficient([(QUESTION, (C1,)), (QUESTION, (C2,))]) == [True, False]
    assert dense.sufficient([(QUESTION, (C1,))]) == [True]
    assert len(generator.logprob_calls) == 1


def test_a_question_without_chunks_is_refused():
    dense, _, _ = engine()
    with pytest.raises(ValueError, match="'q' has no context chunk"):
        dense.evaluate([DenseQuestion("q", QUESTION, ())])


def test_settings_name_the_bad_field():
    with pytest.raises(ValueError, match="answer_max_new_tokens"):
        DenseSettings(answer_max_new_tokens=0)
    with pytest.raises(ValueError, match="threshold"):
        DenseSettings(threshold=-1)
