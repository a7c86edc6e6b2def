"""DENSE-RAG on the rule-based doubles: refinement runs only for uncertain questions and its
rounds are batched; worked out by hand from tests/dense/doubles.py."""

from evaluation.dense.engine import DenseEngine
from evaluation.dense.method.refinement import SUFFICIENT_AND_CERTAIN
from evaluation.dense.pipeline import PipelineQuestion, PipelineSettings, run_pipeline
from tests.evaluation.dense.doubles import RuleGenerator, WordEmbedder
from tests.evaluation.dense.test_dense_engine import C1, C2, C3, QUESTION, REPHRASES
from tests.evaluation.seper.seper_doubles import WordNLI

C4 = "Paris is the capital of France."


def test_refinement_drops_the_unnecessary_chunks_and_refills_until_certain():
    generator, embedder = RuleGenerator(REPHRASES), WordEmbedder()
    engine = DenseEngine(generator, WordNLI())
    uncertain = PipelineQuestion("q1", QUESTION, 3, (C1, C2, C3, C4))
    certain = PipelineQuestion("q2", QUESTION, 1, (C2, C4))
    first, second = run_pipeline([uncertain, certain], engine, embedder, PipelineSettings())
    assert first.evaluation.uncertain and not second.evaluation.uncertain
    assert second.refinement is None and second.semantic_chunks == []
    steps = first.refinement["steps"]
    # Round 0: C3 unnecessary (dropped), C1 necessary -> refilled with C4, the only unvisited.
    assert steps[0]["removed"] == [2] and steps[0]["added"] == [3]
    # Round 1 on [C1, C2, C4]: C1 is now unnecessary (C4 also names Paris) -> [C2, C4].
    assert steps[1]["context"] == [0, 1, 3] and steps[1]["removed"] == [0]
    assert steps[2]["context"] == [1, 3] and steps[2]["dse"] == 0.0
    assert first.refinement["stop_reason"] == SUFFICIENT_AND_CERTAIN
    assert first.refinement["final_answer"] == "Paris"
    assert first.refinement["final_context"] == [1, 3]
    # One sentence per top-k passage here, so each passage is its own semantic chunk.
    assert [c["chunk"] for c in first.semantic_chunks] == [0, 1, 2]
    # Self-evaluation: one batched call per round (3 rounds).
    assert len(generator.logprob_calls) == 3
