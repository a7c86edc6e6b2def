"""The SePer service on scripted responses and a word-overlap NLI: values computed by hand."""

import json
import math

import numpy as np
import pytest

from evaluation.seper.engine import (
    SeperContext,
    SeperQuestion,
    join_passages,
    score_batch,
)
from evaluation.seper.sampling import (
    SamplingParams,
    answer_prompt,
    generation_from_dict,
    generation_to_dict,
    restore_cache,
)
from tests.evaluation.seper.seper_doubles import ScriptedGenerator, WordNLI

PARAMS = SamplingParams(n_samples=3, seed=7)
FRANCE = "What is the capital of France?"
HAMLET = "Who wrote Hamlet?"
SCRIPT = {
    "Context: Paris is the capital": [("Paris", [-0.1]), ("Paris", [-0.1]), ("Paris city", [-0.1])],
    f"Question: {FRANCE}": [("Lyon", [-0.5]), ("Paris", [-0.25, -0.75]), (" Lyon", [-0.5])],
    "Context: Hamlet is a play by Marlowe.": [("Marlowe", [-0.3])],
    f"Question: {HAMLET}": [("Shakespeare", [-0.2]), ("Marlowe", [-1.2])],
}
QUESTIONS = [
    SeperQuestion(
        FRANCE,
        ("Paris",),
        (
            SeperContext("p1", "Paris is the capital of France."),
            SeperContext("blank", "  "),
        ),
    ),
    SeperQuestion(
        HAMLET,
        ("William Shakespeare", "Shakespeare"),
        (SeperContext("p9", "Hamlet is a play by Marlowe."),),
    ),
]


def test_answer_prompt_layout():
    assert answer_prompt("Who?", "Some text.") == (
        "Answer the following question as briefly as possible.\n"
        "Context: Some text.\nQuestion: Who?\nAnswer:"
    )
    bare = "Answer the following question as briefly as possible.\nQuestion: Who?\nAnswer:"
    assert answer_prompt("Who?") == bare
    assert answer_prompt("Who?", " \n ") == bare
    assert join_passages(["A.", " ", "B. "]) == "A.\nB."


def test_sampling_params_map_to_plain_sampling_stopped_at_a_newline():
    params = SamplingParams().generation_params()
    assert (params.num_samples, params.temperature, params.top_p) == (10, 1.0, 1.0)
    assert params.stop == ("\n",) and params.seed == 0
    with pytest.raises(ValueError, match="greedy"):
        SamplingParams(temperature=0.0)


def test_batch_values_by_hand():
    generator, nli = ScriptedGenerator(SCRIPT), WordNLI()
    batch = score_batch(QUESTIONS, generator, nli, PARAMS)
    france, hamlet = batch.results

    # France, no context: Lyon / Paris / Lyon with equal mean log-probs -> weights 1/3.
    base = france.baseline
    np.testing.assert_allclose([r.weight for r in base.responses], [1 / 3] * 3)
    np.testing.assert_allclose(base.score.kernel[:, 0], [0.1, 0.9, 0.1])
    assert base.score.soft == pytest.approx(1.1 / 3)
    assert [c.members for c in base.score.clusters] == [(0, 2), (1,)]
    assert base.score.hard == pytest.approx(1 / 3)
    assert base.delta.soft == 0.0 and base.delta.hard == 0.0

    # With the passage: Paris, Paris, "Paris city" (which entails Paris but not back).
    passage = france.contexts[0]
    assert passage.key == "p1" and "Context: Paris is the capital" in passage.sample_key.prompt
    assert passage.score.soft == pytest.approx(0.9)
    assert [c.members for c in passage.score.clusters] == [(0, 1), (2,)]
    assert [c.matches_gold for c in passage.score.clusters] == [True, True]  # loose match
    assert passage.score.hard == pytest.approx(1.0)
    assert passage.delta.soft == pytest.approx(0.9 - 1.1 / 3) and passage.delta.soft > 0
    assert passage.delta.hard == pytest.approx(2 / 3)

    # A blank context is the baseline itself: same samples, Delta exactly 0.
    blank = france.contexts[1]
    assert blank.sample_key == base.sample_key
    assert (blank.delta.soft, blank.delta.hard) == (0.0, 0.0)

    # Hamlet: Shakespeare (-0.2), Marlowe (-1.2), Shakespeare (-0.2); two golds.
    w = np.exp([-0.2, -1.2, -0.2]) / np.exp([-0.2, -1.2, -0.2]).sum()
    hb = hamlet.baseline
    np.testing.assert_allclose(hb.score.weights, w)
    # "William Shakespeare" entails "Shakespeare" (not back): k = .9 for both golds.
    np.testing.assert_allclose(hb.score.kernel, [[0.9, 0.9], [0.1, 0.1], [0.9, 0.9]])
    assert hb.score.soft == pytest.approx(0.9 * (w[0] + w[2]) + 0.1 * w[1])
    assert hb.score.clusters[0].matched_golds == (0, 1)
    assert hb.score.hard == pytest.approx(w[0] + w[2])
    misled = hamlet.contexts[0]
    assert misled.score.soft == pytest.approx(0.1) and misled.score.hard == 0.0
    assert misled.delta.soft < 0 and misled.delta.hard == pytest.approx(-(w[0] + w[2]))


def test_one_generate_call_and_one_deduplicated_predict_call_per_batch():
    generator, nli = ScriptedGenerator(SCRIPT), WordNLI()
    batch = score_batch(QUESTIONS, generator, nli, PARAMS)
    assert len(generator.calls) == 1
    prompts, params = generator.calls[0]
    assert len(prompts) == len(set(prompts)) == 4  # the blank context reuses the baseline
    assert (params.num_samples, params.seed, params.temperature) == (3, 7, 1.0)
    assert len(nli.calls) == 1
    pairs, questions = nli.calls[0]
    triples = list(zip(questions, pairs, strict=True))
    assert len(set(triples)) == len(triples) == batch.stats.nli_pairs_scored
    assert set(questions) == {FRANCE, HAMLET}
    # Per (question, prompt): N*m pairs each way plus N*(N-1) response pairs.
    assert batch.stats.nli_pairs_requested == 2 * (2 * 3 + 6) + 2 * (2 * 6 + 6)
    assert batch.stats.nli_pairs_scored < batch.stats.nli_pairs_requested
    # Responses are stripped before NLI: " Lyon" is sent as "Lyon".
    assert all(p == p.strip() and h == h.strip() for p, h in pairs)


def test_the_cache_makes_a_second_batch_sample_nothing():
    generator, cache = ScriptedGenerator(SCRIPT), {}
    first = score_batch(QUESTIONS, generator, WordNLI(), PARAMS, cache)
    assert first.stats.prompts_sampled == 4 and len(cache) == 4
    second = score_batch(QUESTIONS, generator, WordNLI(), PARAMS, cache)
    assert len(generator.calls) == 1
    assert (second.stats.prompts_sampled, second.stats.prompts_cached) == (0, 4)
    assert second.stats.sampling_seconds == 0.0
    assert second.to_dict()["results"] == first.to_dict()["results"]
    # Another seed is another key: it samples again.
    score_batch(QUESTIONS[:1], generator, WordNLI(), SamplingParams(n_samples=3, seed=8), cache)
    assert len(generator.calls) == 2 and len(cache) == 6


def test_stored_samples_restore_the_cache():
    first = score_batch(QUESTIONS, ScriptedGenerator(SCRIPT), WordNLI(), PARAMS)
    stored = json.loads(json.dumps(first.to_dict()))
    cache = restore_cache(stored["samples"])
    assert {k.digest() for k in cache} == {entry["digest"] for entry in stored["samples"]}
    generator = ScriptedGenerator(SCRIPT)
    again = score_batch(QUESTIONS, generator, WordNLI(), PARAMS, cache)
    assert generator.calls == []
    assert again.to_dict()["results"] == stored["results"]


def test_result_dict_holds_responses_clusters_kernel_and_deltas():
    record = score_batch(QUESTIONS, ScriptedGenerator(SCRIPT), WordNLI(), PARAMS).to_dict()
    hamlet = record["results"][1]
    assert hamlet["golds"] == ["William Shakespeare", "Shakespeare"]
    context = hamlet["contexts"][0]
    assert context["key"] == "p9" and context["context"] == "Hamlet is a play by Marlowe."
    assert np.array(context["kernel"]).shape == (3, 2)
    assert context["responses"][0] == {
        "text": "Marlowe",
        "tokens": ["t0"],
        "token_logprobs": [-0.3],
        "finish_reason": "stop",
        "score": -0.3,
        "weight": pytest.approx(1 / 3),
    }
    assert context["clusters"] == [
        {
            "members": [0, 1, 2],
            "mass": pytest.approx(1.0),
            "matched_golds": [],
            "matches_gold": False,
        }
    ]
    assert hamlet["baseline"]["key"] is None and hamlet["baseline"]["delta_seper_soft"] == 0.0
    assert context["delta_seper_hard"] < 0
    assert record["stats"]["nli_calls"] == 1


def test_an_empty_response_counts_as_a_sample_with_the_lowest_weight():
    script = {"Question: Who?": [("", []), ("Ann", [-1.0]), ("Bob", [-2.0])]}
    batch = score_batch([SeperQuestion("Who?", ("Ann",))], ScriptedGenerator(script), WordNLI())
    responses = batch.results[0].baseline.responses
    assert len(responses) == 10  # default N
    assert [r.score for r in responses[:3]] == [-2.0, -1.0, -2.0]
    assert math.isclose(sum(r.weight for r in responses), 1.0)
    # The empty answer shares no word with the gold: contradiction, k = .1.
    assert batch.results[0].baseline.score.kernel[0, 0] == pytest.approx(0.1)


def test_bad_questions_are_named():
    with pytest.raises(ValueError, match="question 1: a gold answer is blank"):
        score_batch([QUESTIONS[0], SeperQuestion("Q?", ("x", " "))], ScriptedGenerator({}), None)
    with pytest.raises(ValueError, match="question 0: SePer needs at least one gold"):
        score_batch([SeperQuestion("Q?", ())], ScriptedGenerator({}), None)
    with pytest.raises(ValueError, match="context keys repeat"):
        contexts = (SeperContext("a", "x"), SeperContext("a", "y"))
        score_batch([SeperQuestion("Q?", ("x",), contexts)], ScriptedGenerator({}), None)


def test_generation_dict_round_trip():
    generation = ScriptedGenerator(SCRIPT)._answers(f"Question: {FRANCE}", 2)[1]
    assert generation_from_dict(generation_to_dict(generation)) == generation
