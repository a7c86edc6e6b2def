"""A deterministic stand-in judge model for judging-job tests, handed to the job explicitly."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evaluation.backends.base import Generation, GenerationParams
from evaluation.crux.job import JudgeModel


class ScriptedJudge:
    """Answers ``reply(prompt)`` (default " 3") to every prompt; records every call.

    ``fail_times`` makes the first that many calls raise, like a transient model fault.
    """

    model_id = "test/scripted-judge"

    def __init__(
        self, reply: Callable[[str], str] = lambda prompt: " 3", fail_times: int = 0
    ) -> None:
        self.reply = reply
        self.fail_times = fail_times
        self.calls: list[tuple[list[str], GenerationParams]] = []
        self.failures = 0

    @property
    def prompts(self) -> list[str]:
        return [p for prompts, _ in self.calls for p in prompts]

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[list[Generation]]:
        if self.failures < self.fail_times:
            self.failures += 1
            raise RuntimeError("transient model fault")
        self.calls.append((list(prompts), params))
        return [[Generation(text=self.reply(p), finish_reason="length")] for p in prompts]

    def as_model(self) -> Callable[[str | None], JudgeModel]:
        """What ``run_judge_job`` takes: this judge, whatever model the job names."""
        return lambda model: JudgeModel(model_id=self.model_id, load=lambda: self)


def no_model(model: str | None) -> JudgeModel:
    """A judge whose loading fails the test: for runs that must do no model work."""

    def load():
        raise AssertionError("the judge model was loaded although nothing is missing")

    return JudgeModel(model_id=ScriptedJudge.model_id, load=load)
