"""Untimed warm-up passes for the model benches.

The first batch of a shape a GPU sees pays kernel selection, cuBLAS set-up and allocator growth
(the judging bench once read 28 items/s at batch 16 cold and 89 warm), and on CPU the first
calls pay lazy imports and thread pools. Each bench runs these before it starts a clock, at the
batch shapes it then times.
"""

import time
from collections.abc import Sequence

from evaluation.backends.base import GenerationParams


def warm_up_models(
    generator=None,
    nli=None,
    embedder=None,
    texts: Sequence[str] = ("What is the capital of France?", "Name one colour."),
    samples: int = 10,
    max_new_tokens: int = 8,
) -> float:
    """Greedy and sampled generation, continuation and teacher-forced scoring, NLI and
    embedding of ``texts`` as one batch each; the seconds it took."""
    started = time.perf_counter()
    texts = list(texts)
    if generator is not None:
        generator.generate(texts, GenerationParams(max_new_tokens=max_new_tokens))
        sampled = GenerationParams(
            max_new_tokens=max_new_tokens, temperature=1.0, num_samples=samples, seed=0
        )
        generator.generate(texts, sampled)
        generator.continuation_logprobs(texts, ["yes", "no answer"])
        generator.score_continuations(texts, texts[::-1])
    if nli is not None:
        nli.predict(list(zip(texts, texts[::-1], strict=True)))
    if embedder is not None:
        embedder.embed(texts)
    return time.perf_counter() - started
