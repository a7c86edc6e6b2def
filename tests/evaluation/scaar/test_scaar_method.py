"""SCAAR's contributions, thresholds, triggers, PFQ and FLARE on hand-computed numbers."""

import math

import numpy as np
import pytest

from evaluation.scaar.method.contributions import (
    ScaarSettings,
    SentenceWords,
    analyse_answer,
    analyse_sentence,
    contributions,
    flare_masked_query,
    leave_one_out_texts,
    normalise,
    percentile_filtered_query,
    segment_answer,
    thresholds,
)

QUESTION = "Were Scott Derrickson and Ed Wood of the same nationality?"


def sentence(words, probs):
    return SentenceWords(" ".join(words), tuple(words), tuple(probs), tuple(1 for _ in words))


def test_leave_one_out_texts_drop_one_word_each_after_the_question():
    assert leave_one_out_texts(" Q? ", ["a", "b", "c"]) == [
        "Q? a b c",
        "Q? b c",
        "Q? a c",
        "Q? a b",
    ]
    assert leave_one_out_texts("Q?", []) == ["Q?"]


def test_contribution_is_one_minus_the_clipped_similarity():
    np.testing.assert_allclose(contributions([0.9, 1.2, -0.3, 0.5]), [0.1, 0.0, 1.0, 0.5])


def test_normalised_contributions_sum_to_the_sentence_length():
    r = [0.1, 0.3, 0.0, 0.2]
    np.testing.assert_allclose(normalise(r), [4 * 0.1 / 0.6, 4 * 0.3 / 0.6, 0.0, 4 * 0.2 / 0.6])
    assert normalise(r).sum() == pytest.approx(4)
    np.testing.assert_allclose(normalise([0.0, 0.0]), [1.0, 1.0])  # nothing changes: all equal
    assert normalise([]).size == 0


def test_thresholds_scale_theta0_by_the_exponential_of_the_weight():
    np.testing.assert_allclose(
        thresholds([0.0, 0.1, 1.0], 0.8), [0.8, 0.8 * math.exp(0.1), 0.8 * math.e]
    )


def test_pfq_keeps_the_top_alpha_words_by_contribution_that_are_not_below_threshold():
    words = ["Scott", "Derrickson", "is", "an", "American", "film", "director."]
    r_norm = [0.9, 1.5, 0.2, 0.1, 2.0, 1.6, 0.7]
    below = [False, False, False, False, False, True, False]
    # ceil(0.5 * 7) = 4 words by r': American, film, Derrickson, Scott; film is below threshold.
    query, kept = percentile_filtered_query(QUESTION, words, r_norm, below, alpha=0.5)
    assert kept == [4, 1, 0]
    assert query == f"{QUESTION} American Derrickson Scott"


def test_pfq_breaks_ties_by_position_and_keeps_the_bare_question_when_nothing_survives():
    query, kept = percentile_filtered_query(
        "Q?", ["a", "b", "c"], [1.0, 1.0, 1.0], [False] * 3, 0.34
    )
    assert (query, kept) == ("Q? a b", [0, 1])  # ceil(0.34 * 3) = 2 of three equal words
    query, kept = percentile_filtered_query("Q?", ["a", "b"], [1.5, 0.5], [True, False], 0.5)
    assert (query, kept) == ("Q?", [])
    assert percentile_filtered_query("Q?", [], [], [], 1.0) == ("Q?", [])


def test_flare_query_masks_the_low_confidence_words():
    assert flare_masked_query(["a", "b", "c"], [False, True, False]) == "a c"
    assert flare_masked_query(["a"], [True]) == ""


def test_sentence_triggers_when_a_word_falls_below_its_own_threshold_only():
    # r = [0.0, 0.2, 0.05]; raw thresholds 0.8 * exp(r) = [0.8, 0.977, 0.841].
    s = sentence(["It", "opened", "1914."], [0.85, 0.95, 0.86])
    result = analyse_sentence("When?", s, [1.0, 0.8, 0.95], ScaarSettings(theta0=0.8, alpha=1.0))
    np.testing.assert_allclose(result.contributions, [0.0, 0.2, 0.05])
    np.testing.assert_allclose(result.normalised, [0.0, 2.4, 0.6])
    np.testing.assert_allclose(result.thresholds, [0.8, 0.8 * math.exp(0.2), 0.8 * math.exp(0.05)])
    assert result.below == [False, True, False]  # 0.95 < 0.977: the key word is unsure
    assert result.triggered
    assert result.query_words == [2, 0]  # "opened" is dropped from the query: below threshold
    assert result.query == "When? 1914. It"
    # FLARE's fixed 0.8 passes every word of the same sentence.
    assert result.flare_below == [False, False, False] and not result.flare_triggered


def test_normalised_weighting_uses_r_prime_and_raises_thresholds_above_one():
    s = sentence(["It", "opened", "1914."], [0.85, 0.95, 0.86])
    settings = ScaarSettings(theta0=0.8, alpha=1.0, weighting="normalised")
    result = analyse_sentence("When?", s, [1.0, 0.8, 0.95], settings)
    np.testing.assert_allclose(result.thresholds, [0.8, 0.8 * math.exp(2.4), 0.8 * math.exp(0.6)])
    assert result.below == [False, True, True]
    assert result.query == "When? It"


def test_a_confident_sentence_does_not_trigger_and_single_words_work():
    s = sentence(["Paris."], [0.99])
    result = analyse_sentence("Capital?", s, [0.2], ScaarSettings(theta0=0.8))
    assert result.contributions == [pytest.approx(0.8)] and result.normalised == [1.0]
    assert result.thresholds == [pytest.approx(0.8 * math.exp(0.8))]  # 1.78: still triggers
    assert result.triggered
    calm = analyse_sentence("Capital?", s, [1.0], ScaarSettings(theta0=0.8))
    assert not calm.triggered and calm.query == "Capital? Paris."


def test_analyse_answer_counts_retrievals_and_checks_its_inputs():
    sentences = [sentence(["a", "b"], [0.99, 0.5]), sentence(["c"], [0.99])]
    answer = analyse_answer("Q?", sentences, [[1.0, 1.0], [1.0]], ScaarSettings(theta0=0.8))
    assert answer.n_retrievals == 1 and answer.flare_retrievals == 1
    record = answer.to_dict()
    assert record["n_retrievals"] == 1 and len(record["sentences"]) == 2
    assert record["settings"] == {"theta0": 0.8, "alpha": 0.5, "weighting": "raw"}
    with pytest.raises(ValueError, match="2 sentences but 1 similarity lists"):
        analyse_answer("Q?", sentences, [[1.0, 1.0]], ScaarSettings())
    with pytest.raises(ValueError, match="sentence of 2 words needs 2 similarities, got 1"):
        analyse_sentence("Q?", sentences[0], [1.0], ScaarSettings())


def test_segment_answer_aligns_tokens_to_words_per_sentence():
    tokens = ["The", " can", "al", " opened", ".", " In", " 1914", "."]
    logprobs = [math.log(p) for p in [0.9, 0.25, 1.0, 0.5, 1.0, 0.8, 0.4, 1.0]]
    first, second = segment_answer(tokens, logprobs)
    assert first.text == "The canal opened." and first.words == ("The", "canal", "opened.")
    assert first.n_tokens == (1, 2, 2)
    np.testing.assert_allclose(first.probabilities, [0.9, 0.5, math.sqrt(0.5)])
    assert second.words == ("In", "1914.")
    np.testing.assert_allclose(second.probabilities, [0.8, math.sqrt(0.4)])
    with pytest.raises(ValueError, match="2 tokens but 1 log-probs"):
        segment_answer(["a", "b"], [0.0])
    assert segment_answer([], []) == []


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("theta0", 0.0, "theta0 must be in"), ("alpha", 1.5, "alpha must be in"),
     ("weighting", "attn", "weighting must be one of")],
)  # fmt: skip
def test_settings_are_validated(field, value, message):
    with pytest.raises(ValueError, match=message):
        ScaarSettings(**{field: value})
