"""Teacher-forced scoring of existing text on the embedded generator (SCAAR's log-probs)."""

import numpy as np
import pytest

from evaluation.backends.base import GenerationParams

pytestmark = pytest.mark.models


def test_scoring_a_generated_answer_reproduces_its_generation_logprobs(embedded_generator):
    prompts = ["What is the capital of France?", "Name a colour."]
    generated = embedded_generator.generate(prompts, GenerationParams(max_new_tokens=10))
    texts = [row[0].text for row in generated]

    scored = embedded_generator.score_continuations(prompts, texts)

    for row, result in zip(generated, scored, strict=True):
        assert result.text == row[0].text and "".join(result.tokens) == result.text
        assert result.token_ids == row[0].token_ids
        np.testing.assert_allclose(result.token_logprobs, row[0].token_logprobs, atol=1e-4)


def test_scoring_handles_empty_and_multibyte_continuations(embedded_generator):
    empty, multibyte = embedded_generator.score_continuations(["Hi", "Hi"], ["", "Café über 😀"])
    assert empty.tokens == [] and empty.token_logprobs == []
    assert "".join(multibyte.tokens) == "Café über 😀"
    assert len(multibyte.tokens) == len(multibyte.token_logprobs) == len(multibyte.token_ids)
    assert all(lp <= 0 for lp in multibyte.token_logprobs)
    with pytest.raises(ValueError, match="one prompt per continuation"):
        embedded_generator.score_continuations(["a"], ["b", "c"])
