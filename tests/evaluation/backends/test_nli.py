"""NLI backends: the classifier path on a tiny random model, the LLM-prompt default on SmolLM2."""

import numpy as np
import pytest
import torch

from evaluation.backends.model.loading import build_classifier_nli
from evaluation.backends.nli_classifier import label_columns
from evaluation.backends.nli_llm_prompt import LABEL_SPELLINGS, nli_prompt

pytestmark = pytest.mark.models

PAIRS = [
    ("The cat sat on the mat.", "A cat is sitting."),
    ("Paris is the capital of France.", "Berlin is in Spain."),
    ("It rained all day.", "The weather was dry."),
]
MNLI_ORDER = {0: "entailment", 1: "neutral", 2: "contradiction"}
PERMUTED = {0: "CONTRADICTION", 1: "Entailment", 2: "NEUTRAL"}


def test_label_columns_follow_id2label_names():
    assert label_columns(MNLI_ORDER) == [0, 1, 2]
    assert label_columns(PERMUTED) == [1, 2, 0]
    with pytest.raises(ValueError, match="LABEL_0"):
        label_columns({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})


def test_classifier_nli_loads_from_a_folder_and_returns_probabilities(tiny_nli_factory):
    nli = build_classifier_nli(str(tiny_nli_factory(PERMUTED)), torch.device("cpu"))
    probs = nli.predict(PAIRS)
    assert probs.shape == (3, 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)
    # Columns are the model's softmax re-ordered by id2label: entailment is output 1, etc.
    encoded = nli.tokenizer(
        [p for p, _ in PAIRS], [h for _, h in PAIRS], padding=True, return_tensors="pt"
    )
    with torch.inference_mode():
        raw = torch.softmax(nli.model(**encoded).logits, dim=-1).numpy()
    np.testing.assert_allclose(probs, raw[:, [1, 2, 0]], atol=1e-6)


def test_same_weights_with_another_label_order_permute_the_columns(tiny_nli_factory):
    permuted = build_classifier_nli(str(tiny_nli_factory(PERMUTED)), torch.device("cpu"))
    ordered = build_classifier_nli(str(tiny_nli_factory(MNLI_ORDER)), torch.device("cpu"))
    a, b = permuted.predict(PAIRS), ordered.predict(PAIRS)
    # Output k of both models is the same number; only its name differs.
    np.testing.assert_allclose(a, b[:, [1, 2, 0]], atol=1e-6)
    assert not np.allclose(a, b, atol=1e-4)


def test_classifier_questions_prefix_both_texts(tiny_nli_factory):
    nli = build_classifier_nli(str(tiny_nli_factory(MNLI_ORDER)), torch.device("cpu"))
    with_q = nli.predict(PAIRS[:1], questions=["Where is the cat?"])
    by_hand = nli.predict(
        [("Where is the cat? " + PAIRS[0][0], "Where is the cat? " + PAIRS[0][1])]
    )
    np.testing.assert_allclose(with_q, by_hand, atol=1e-6)
    with pytest.raises(ValueError, match="2 questions for 1 NLI pairs"):
        nli.predict(PAIRS[:1], questions=["a", "b"])


def test_llm_nli_scores_the_label_words_of_the_dense_prompt(llm_nli, embedded_generator):
    probs = llm_nli.predict(PAIRS[:2])
    assert probs.shape == (2, 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-9)
    assert (probs > 0).all()
    # Row 0 by hand: label probability = sum over its spellings, renormalised over labels.
    spellings = [
        s for label in ("entailment", "neutral", "contradiction") for s in LABEL_SPELLINGS[label]
    ]
    logp = embedded_generator.continuation_logprobs([nli_prompt(*PAIRS[0])], spellings)[0]
    mass = np.exp(logp).reshape(3, -1).sum(axis=1)
    # float32 rounding: the batch of two computes the prompts' shared prefix once, the reference
    # runs the prompt alone, so the sums are ordered differently.
    np.testing.assert_allclose(probs[0], mass / mass.sum(), atol=1e-5)


def test_llm_nli_prompt_holds_the_question_when_given(llm_nli):
    prompt = nli_prompt("Paris.", "Lyon.", "What is the capital of France?")
    assert "question What is the capital of France? Here are two possible answers" in prompt
    assert "Possible Answer 1: Paris.\nPossible Answer 2: Lyon." in prompt
    assert "Respond with ONLY entailment, contradiction, or neutral." in prompt
    assert nli_prompt("Paris.", "Lyon.").startswith(
        "We are evaluating answers to a question. Here are two possible answers:\n"
    )
    assert llm_nli.predict([]).shape == (0, 3)
    with pytest.raises(ValueError, match="1 questions for 2 NLI pairs"):
        llm_nli.predict(PAIRS[:2], questions=["q"])
