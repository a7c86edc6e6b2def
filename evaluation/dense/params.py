"""A DENSE job's parameters, declared once: the start form's fields, ``manage.py dense``'s
options and the job's parsing of its JSON params are made from them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from crux_app.models import Run
from crux_app.parameters import JobParameters, ParameterError, param
from evaluation.dense.engine import DenseSettings
from evaluation.dense.method.graph import DEFAULT_THRESHOLD
from evaluation.dense.pipeline import PipelineSettings

DEFAULT_K = 5
MAX_K = 20
DEFAULT_POOL = 20
DEFAULT_BATCH_SIZE = 4
DEFAULT_MAX_STEPS = 4
MAX_NEW_TOKENS = 4096
MAX_BATCH_SIZE = 512


@dataclass(frozen=True)
class DenseJobParams(JobParameters):
    command: ClassVar[str | None] = "dense"

    run_id: int = param(describe="a run id", form=False, cli=None)
    k: int = param(DEFAULT_K, minimum=1, maximum=MAX_K, label="Top k")
    threshold: float = param(DEFAULT_THRESHOLD, minimum=0.0, label="Uncertain when DSE >")
    answer_max_new_tokens: int = param(24, minimum=1, maximum=MAX_NEW_TOKENS, form=False)
    rephrase_max_new_tokens: int = param(96, minimum=1, maximum=MAX_NEW_TOKENS, form=False)
    refine: bool = param(True, label="Refine uncertain questions (Algorithm 3)")
    chunking: bool = param(True, label="Semantic chunks for uncertain questions (Algorithm 2)")
    max_steps: int = param(
        DEFAULT_MAX_STEPS, minimum=1, maximum=10, label="Refinement steps at most"
    )
    # The ranked chunks refinement may refill from.
    pool: int = param(
        DEFAULT_POOL, minimum=1, maximum=100, label="Refinement pool (ranked passages)"
    )
    batch_size: int = param(DEFAULT_BATCH_SIZE, minimum=1, maximum=MAX_BATCH_SIZE, form=False)

    def check(self) -> None:
        if self.pool < self.k:
            raise ParameterError(
                f"job parameter 'pool' ({self.pool}) must be >= k ({self.k}): the refinement "
                "pool must hold at least k passages",
                "pool",
            )

    def as_params(self, run: Run | None = None) -> dict[str, Any]:
        """The JSON params of a job; the run's name is kept for display only."""
        return {"run": run.name if run else None, **asdict(self)}

    def result_params(self, embedder_id: str) -> dict[str, Any]:
        """The settings a stored row depends on (not the batch size, not the run or k)."""
        out = asdict(self)
        for name in ("run_id", "k", "batch_size"):
            out.pop(name)
        out["embedder"] = embedder_id
        return out

    def engine_settings(self) -> DenseSettings:
        return DenseSettings(
            threshold=self.threshold,
            answer_max_new_tokens=self.answer_max_new_tokens,
            rephrase_max_new_tokens=self.rephrase_max_new_tokens,
        )

    def pipeline_settings(self) -> PipelineSettings:
        return PipelineSettings(
            refine=self.refine, max_steps=self.max_steps, chunking=self.chunking
        )
