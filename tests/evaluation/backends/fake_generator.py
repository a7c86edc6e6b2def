"""A deterministic stand-in generator for job tests, handed to the job explicitly."""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.backends.base import Generation, GenerationParams


class RecordingGenerator:
    """Answers ``answer-<n>`` for the n-th prompt it sees; records every call.

    ``fail_on`` makes any call whose prompts contain that text raise, like a model fault.
    """

    model_id = "test/recording-generator"

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[tuple[list[str], GenerationParams]] = []
        self.fail_on = fail_on

    @property
    def prompts(self) -> list[str]:
        return [p for prompts, _ in self.calls for p in prompts]

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[list[Generation]]:
        if self.fail_on is not None and any(self.fail_on in p for p in prompts):
            raise RuntimeError(f"model fault on {self.fail_on!r}")
        start = len(self.prompts)
        self.calls.append((list(prompts), params))
        return [
            [
                Generation(
                    text=f" answer-{start + i}",
                    tokens=[" answer", "-", str(start + i)],
                    token_ids=[11, 12, 13],
                    token_logprobs=[-0.5, -0.25, -0.125],
                    finish_reason="stop",
                )
            ]
            for i in range(len(prompts))
        ]
