"""Scripted stand-ins for the generator and the CompareGPT judge, handed to the job directly."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evaluation.backends.base import Generation, GenerationParams
from evaluation.reteval.job import RetEvalModels


class ScriptedGenerator:
    """Answers each prompt with ``reply(prompt, sample index)``; records every call."""

    def __init__(self, model_id: str, reply: Callable[[str, int], str]) -> None:
        self.model_id = model_id
        self.reply = reply
        self.calls: list[tuple[list[str], GenerationParams]] = []

    @property
    def prompts(self) -> list[str]:
        return [p for prompts, _ in self.calls for p in prompts]

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[list[Generation]]:
        self.calls.append((list(prompts), params))
        return [
            [
                Generation(
                    text=self.reply(p, i), tokens=["x"], token_ids=[1], token_logprobs=[-0.1]
                )
                for i in range(params.num_samples)
            ]
            for p in prompts
        ]


def models(generator: ScriptedGenerator, judge: ScriptedGenerator) -> RetEvalModels:
    return RetEvalModels(
        generator_id=generator.model_id,
        judge_id=judge.model_id,
        load_generator=lambda: generator,
        load_judge=lambda: judge,
    )


def judge_by_prediction(verdicts: dict[str, str]) -> Callable[[str, int], str]:
    """The judge's raw output chosen by the prediction's text (default "No")."""

    def reply(prompt: str, _: int) -> str:
        prediction = prompt.split("Prediction: ", 1)[1].split("\n", 1)[0]
        return verdicts.get(prediction, "No")

    return reply
