"""Shared prefill, length-ordered passes and the forward-token counter.

The layout helpers are checked on hand-made rows; the generator paths on the embedded SmolLM2,
each against the plain path (``share_prefill=False``, ``order_by_length=False``) on the same
model: same samples for the same seed, same log-probabilities, fewer forward tokens.
"""

import numpy as np
import pytest
import torch

from evaluation.backends.base import GenerationParams
from evaluation.backends.forward_tokens import ForwardTokenCounter
from evaluation.backends.model.passes import length_order
from evaluation.backends.shared_prefill import common_prefix_length, prefix_layout
from evaluation.backends.transformers_generator import TransformersGenerator

PROMPTS = ["What is the capital of France?", "Name one colour of the sky."]
SAMPLING = GenerationParams(max_new_tokens=6, temperature=1.0, num_samples=4, seed=3)
GREEDY = GenerationParams(max_new_tokens=6, temperature=0.0)


def test_common_prefix_leaves_each_row_its_own_tokens():
    assert common_prefix_length([[1, 2, 3, 4], [1, 2, 3, 5, 6]]) == 3
    assert common_prefix_length([[1, 2, 3], [1, 2, 3, 4]]) == 2  # row 0 keeps one token
    assert common_prefix_length([[1, 2, 3], [1, 2, 3, 4]], keep=2) == 1
    assert common_prefix_length([[7, 2], [1, 2]]) == 0
    assert common_prefix_length([[1, 2, 3]]) == 0  # nobody to share with
    assert common_prefix_length([[1], [1]]) == 0


def test_prefix_layout_pads_between_the_prefix_and_each_rows_own_tokens():
    rows = [[5, 6, 7, 8], [5, 6, 9]]
    layout = prefix_layout(rows, pad_id=0, device=torch.device("cpu"), shared=2)
    assert layout.input_ids.tolist() == [[5, 6, 7, 8], [5, 6, 0, 9]]
    assert layout.attention_mask.tolist() == [[1, 1, 1, 1], [1, 1, 0, 1]]
    # Row 1's token 9 sits at position 2, as it would alone and unpadded.
    assert layout.position_ids[1, -1].item() == 2 and layout.position_ids[0, -1].item() == 3
    doubled = layout.repeat_rows(2)
    assert doubled.input_ids.tolist() == [[5, 6, 7, 8]] * 2 + [[5, 6, 0, 9]] * 2
    assert length_order([[1, 2, 3], [1], [1, 2], [4]]) == [1, 3, 2, 0]


@pytest.fixture(scope="module")
def plain(embedded_generator) -> TransformersGenerator:
    """The same model on the path before shared prefill and length ordering."""
    g = embedded_generator
    return TransformersGenerator(
        g.model, g.tokenizer, g.model_id, share_prefill=False, order_by_length=False
    )


@pytest.fixture(scope="module")
def shared(embedded_generator) -> TransformersGenerator:
    g = embedded_generator
    return TransformersGenerator(g.model, g.tokenizer, g.model_id, order_by_length=False)


def counted(generator: TransformersGenerator, call):
    with ForwardTokenCounter(generator.model) as counter:
        result = call()
    return result, counter.tokens


@pytest.mark.models
def test_forward_token_counter_counts_rows_times_positions(embedded_generator):
    model = embedded_generator.model
    with torch.inference_mode(), ForwardTokenCounter(model) as counter:
        model(input_ids=torch.tensor([[1, 2, 3], [4, 5, 6]]))
        # A 4-token prompt and 3 new tokens: a prefill of 4 positions, then 1 per decoding step
        # (the last token is picked from the third pass's logits).
        model.generate(
            input_ids=torch.tensor([[1, 2, 3, 4]]),
            attention_mask=torch.ones((1, 4), dtype=torch.long),
            max_new_tokens=3,
            min_new_tokens=3,
            do_sample=False,
            pad_token_id=embedded_generator.pad_id,
        )
    assert (counter.tokens, counter.calls) == (2 * 3 + 4 + 1 + 1, 4)
    with torch.inference_mode():
        model(input_ids=torch.tensor([[1, 2]]))
    assert counter.tokens == 12  # the hook is gone after the block


@pytest.mark.models
def test_shared_prefill_samples_equal_the_plain_path(plain, shared):
    before, plain_tokens = counted(plain, lambda: plain.generate(PROMPTS, SAMPLING))
    after, shared_tokens = counted(shared, lambda: shared.generate(PROMPTS, SAMPLING))
    assert [[g.token_ids for g in row] for row in after] == [
        [g.token_ids for g in row] for row in before
    ]
    for row_before, row_after in zip(before, after, strict=True):
        for g_before, g_after in zip(row_before, row_after, strict=True):
            assert g_after.text == g_before.text and g_after.finish_reason == g_before.finish_reason
            np.testing.assert_allclose(g_after.token_logprobs, g_before.token_logprobs, atol=1e-4)
    # Each prompt's prefill ran once instead of once per sample.
    assert shared_tokens < plain_tokens
    prompt_tokens = sum(len(ids) for ids in plain.encode_prompts(PROMPTS, True))
    assert plain_tokens - shared_tokens >= (SAMPLING.num_samples - 1) * prompt_tokens


@pytest.mark.models
def test_shared_prefix_greedy_and_scoring_equal_the_plain_path(plain, shared):
    greedy_before = plain.generate(PROMPTS, GREEDY)
    greedy_after = shared.generate(PROMPTS, GREEDY)
    assert [row[0].token_ids for row in greedy_after] == [row[0].token_ids for row in greedy_before]
    candidates = ["Paris", "Blue is nice", "3"]
    scores_before, plain_tokens = counted(
        plain, lambda: plain.continuation_logprobs(PROMPTS, candidates)
    )
    scores_after, shared_tokens = counted(
        shared, lambda: shared.continuation_logprobs(PROMPTS, candidates)
    )
    np.testing.assert_allclose(scores_after, scores_before, atol=1e-4)
    # The chat template's system prompt and "What"/"Name" split the prompts late: their common
    # prefix ran once.
    ids = plain.encode_prompts(PROMPTS, True)
    assert plain_tokens - shared_tokens == common_prefix_length(ids)


@pytest.mark.models
def test_length_ordered_passes_cut_padding_and_keep_input_order(embedded_generator):
    g = embedded_generator
    # Two prompts a pass (one-token candidates need no copies of a prompt).
    ordered = TransformersGenerator(g.model, g.tokenizer, g.model_id, 2, share_prefill=False)
    unordered = TransformersGenerator(
        g.model, g.tokenizer, g.model_id, 2, share_prefill=False, order_by_length=False
    )
    prompts = ["Hi.", "Tell me, in a few words, why the sky looks blue on a clear day.", "Ok?"]
    prompts.append(prompts[1] + " And at night?")
    lengths = [len(ids) for ids in g.encode_prompts(prompts, True)]
    # One-token candidates: each pass is one forward over its padded prompts.
    before, unordered_tokens = counted(
        unordered, lambda: unordered.continuation_logprobs(prompts, ["1", "2"])
    )
    after, ordered_tokens = counted(
        ordered, lambda: ordered.continuation_logprobs(prompts, ["1", "2"])
    )
    np.testing.assert_allclose(after, before, atol=1e-4)
    assert unordered_tokens == 2 * max(lengths[:2]) + 2 * max(lengths[2:])
    short, long = sorted(lengths)[:2], sorted(lengths)[2:]
    assert ordered_tokens == 2 * max(short) + 2 * max(long) < unordered_tokens
    greedy_before = unordered.generate(prompts, GREEDY)
    greedy_after = ordered.generate(prompts, GREEDY)
    assert [r[0].token_ids for r in greedy_after] == [r[0].token_ids for r in greedy_before]
