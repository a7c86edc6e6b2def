"""The transformers generator on the embedded SmolLM2, checked against direct forward passes."""

import numpy as np
import pytest
import torch

from evaluation.backends.base import Generation, GenerationParams

pytestmark = pytest.mark.models

PROMPTS = ["What is the capital of France?", "Name one colour."]
SAMPLING = GenerationParams(max_new_tokens=8, temperature=1.0, num_samples=3, seed=7)
GREEDY = GenerationParams(max_new_tokens=10, temperature=0.0, num_samples=2)


def chat_ids(generator, prompt: str) -> list[int]:
    """Prompt ids built straight from the tokenizer's chat template, not from the backend."""
    return generator.tokenizer.apply_chat_template(
        [{"role": "user", "content": prompt}], tokenize=True, add_generation_prompt=True
    )["input_ids"]


def reference_logprobs(generator, prompt_ids: list[int], new_ids: list[int]) -> torch.Tensor:
    """log_softmax of the model's logits at each new token's position, one unpadded pass."""
    with torch.inference_mode():
        logits = generator.model(torch.tensor([prompt_ids + new_ids])).logits[0].float()
    return torch.log_softmax(logits, dim=-1)[len(prompt_ids) - 1 : -1]


@pytest.fixture(scope="module")
def sampled(embedded_generator) -> list[list[Generation]]:
    return embedded_generator.generate(PROMPTS, SAMPLING)


@pytest.fixture(scope="module")
def greedy(embedded_generator) -> list[list[Generation]]:
    return embedded_generator.generate(PROMPTS, GREEDY)


def test_samples_have_aligned_tokens_and_text(embedded_generator, sampled):
    assert [len(row) for row in sampled] == [3, 3]
    for g in (g for row in sampled for g in row):
        assert 1 <= len(g.token_ids) <= SAMPLING.max_new_tokens
        assert len(g.tokens) == len(g.token_ids) == len(g.token_logprobs)
        assert g.text == embedded_generator.tokenizer.decode(g.token_ids)
        assert g.tokens == [embedded_generator.tokenizer.decode([t]) for t in g.token_ids]
        assert all(lp <= 0 for lp in g.token_logprobs)
        assert g.finish_reason == ("length" if len(g.token_ids) == 8 else "stop")


def test_sampled_logprobs_match_a_direct_forward_pass(embedded_generator, sampled):
    for prompt, row in zip(PROMPTS, sampled, strict=True):
        prompt_ids = chat_ids(embedded_generator, prompt)
        for g in row:
            ref = reference_logprobs(embedded_generator, prompt_ids, g.token_ids)
            expected = ref[torch.arange(len(g.token_ids)), torch.tensor(g.token_ids)]
            np.testing.assert_allclose(g.token_logprobs, expected.numpy(), atol=1e-4)


def test_same_seed_gives_same_samples_and_another_seed_differs(embedded_generator, sampled):
    again = embedded_generator.generate(PROMPTS, SAMPLING)
    assert [[g.token_ids for g in row] for row in again] == [
        [g.token_ids for g in row] for row in sampled
    ]
    other = embedded_generator.generate(PROMPTS, GenerationParams(**{**vars(SAMPLING), "seed": 8}))
    assert [[g.token_ids for g in row] for row in other] != [
        [g.token_ids for g in row] for row in sampled
    ]


def test_greedy_picks_the_argmax_and_repeats_identically(embedded_generator, greedy):
    for prompt, row in zip(PROMPTS, greedy, strict=True):
        first, second = row
        assert first.token_ids == second.token_ids and first.text == second.text
        ref = reference_logprobs(
            embedded_generator, chat_ids(embedded_generator, prompt), first.token_ids
        )
        assert ref.argmax(-1).tolist() == first.token_ids
        np.testing.assert_allclose(first.token_logprobs, ref.max(-1).values.numpy(), atol=1e-4)


def test_greedy_batched_with_left_padding_equals_one_prompt_alone(embedded_generator, greedy):
    alone = embedded_generator.generate(PROMPTS[1:], GREEDY)
    assert alone[0][0].token_ids == greedy[1][0].token_ids


def test_stop_string_cuts_text_tokens_and_logprobs(embedded_generator, greedy):
    full = greedy[0][0]
    # A token whose text first occurs exactly where it starts gives a stop string whose cut
    # point is known in advance.
    k = next(
        k
        for k in range(1, len(full.tokens))
        if full.tokens[k].strip()
        and full.text.find(full.tokens[k]) == len("".join(full.tokens[:k]))
    )
    params = GenerationParams(**{**vars(GREEDY), "stop": ("@@never@@", full.tokens[k])})
    cut = embedded_generator.generate(PROMPTS[:1], params)[0][0]
    assert cut.finish_reason == "stop"
    assert cut.token_ids == full.token_ids[:k]
    assert cut.text == embedded_generator.tokenizer.decode(full.token_ids[:k])
    assert full.tokens[k] not in cut.text
    np.testing.assert_allclose(cut.token_logprobs, full.token_logprobs[:k], atol=1e-4)


def test_chat_template_and_system_prompt_are_applied(embedded_generator):
    rendered = embedded_generator.render("Hi there", True, "Be brief.")
    assert rendered.startswith("<|im_start|>system\nBe brief.<|im_end|>")
    assert rendered.endswith("<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n")
    assert embedded_generator.render("Hi there", False, "Be brief.") == "Hi there"
    assert embedded_generator.encode_prompts(["Hi there"], True)[0] == chat_ids(
        embedded_generator, "Hi there"
    )
    plain = embedded_generator.encode_prompts(["Hi there"], False)[0]
    assert plain == embedded_generator.tokenizer("Hi there")["input_ids"]


def test_continuation_logprobs_match_a_direct_forward_pass(embedded_generator):
    candidates = ["Paris", "Blue is nice", "entailment"]
    scores = embedded_generator.continuation_logprobs(PROMPTS, candidates)
    assert scores.shape == (2, 3)
    for i, prompt in enumerate(PROMPTS):
        prompt_ids = chat_ids(embedded_generator, prompt)
        for j, cand in enumerate(candidates):
            cand_ids = embedded_generator.tokenizer(cand, add_special_tokens=False)["input_ids"]
            ref = reference_logprobs(embedded_generator, prompt_ids, cand_ids)
            expected = ref[torch.arange(len(cand_ids)), torch.tensor(cand_ids)].sum()
            assert scores[i, j] == pytest.approx(float(expected), abs=1e-4)
    assert scores[0, 0] > scores[0, 1]  # the model does know the capital of France


def test_continuation_logprobs_without_chat_template(embedded_generator):
    score = embedded_generator.continuation_logprobs(["The sky is"], [" blue"], False)
    prompt_ids = embedded_generator.tokenizer("The sky is")["input_ids"]
    cand_ids = embedded_generator.tokenizer(" blue", add_special_tokens=False)["input_ids"]
    ref = reference_logprobs(embedded_generator, prompt_ids, cand_ids)
    expected = ref[torch.arange(len(cand_ids)), torch.tensor(cand_ids)].sum()
    assert score.shape == (1, 1) and score[0, 0] == pytest.approx(float(expected), abs=1e-4)


def test_count_tokens(embedded_generator):
    counts = embedded_generator.count_tokens(["Paris is nice.", ""])
    expected = len(
        embedded_generator.tokenizer("Paris is nice.", add_special_tokens=False)["input_ids"]
    )
    assert counts == [expected, 0] and expected > 0


def test_invalid_params_are_refused(embedded_generator):
    with pytest.raises(ValueError, match="num_samples"):
        embedded_generator.generate(PROMPTS, GenerationParams(num_samples=0))
