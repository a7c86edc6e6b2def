"""A ``generate_answers`` job's parameters, declared once: the start form's fields and the
job's parsing of its JSON params are made from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crux_app.models import Run
from crux_app.parameters import JobParameters, param
from evaluation.answers.generation import DEFAULT_K, DEFAULT_MAX_NEW_TOKENS

DEFAULT_BATCH_SIZE = 4
MAX_NEW_TOKENS = 4096
MAX_BATCH_SIZE = 512


@dataclass(frozen=True)
class AnswerJobParams(JobParameters):
    # None: closed-book answers.
    run_id: int | None = param(None, describe="a run id", form=False, cli=None)
    k: int = param(DEFAULT_K, minimum=1, maximum=100, label="Top k")
    max_new_tokens: int = param(
        DEFAULT_MAX_NEW_TOKENS, minimum=1, maximum=MAX_NEW_TOKENS, form=False
    )
    batch_size: int = param(DEFAULT_BATCH_SIZE, minimum=1, maximum=MAX_BATCH_SIZE, form=False)

    def as_params(self, run: Run | None = None) -> dict[str, Any]:
        """The JSON params of a job; the run's name is kept for display only."""
        return {
            "run_id": self.run_id,
            "run": run.name if run else None,
            "k": self.k,
            "max_new_tokens": self.max_new_tokens,
            "batch_size": self.batch_size,
        }
