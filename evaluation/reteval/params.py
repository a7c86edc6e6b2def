"""An LLM-retEval job's parameters, declared once: the start form's fields, ``manage.py
reteval``'s ``--k`` and ``--max-questions`` and the job's parsing of its JSON params are made
from them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from crux_app.models import Run
from crux_app.parameters import JobParameters, param
from evaluation.reteval.semi_gold import SemiGoldSettings

DEFAULT_KS = (1, 5, 10)
DEFAULT_SEMI_GOLD = 3
DEFAULT_TEMPERATURE = 0.5
DEFAULT_MAX_NEW_TOKENS = 16
DEFAULT_BATCH_SIZE = 4
MAX_K = 100
MAX_SEED = 2**32 - 1
MAX_QUESTIONS = 1_000_000
MAX_BATCH_SIZE = 512


@dataclass(frozen=True)
class RetEvalJobParams(JobParameters):
    command: ClassVar[str | None] = "reteval"

    run_id: int = param(describe="a run id", form=False, cli=None)
    ks: tuple[int, ...] = param(
        DEFAULT_KS, minimum=1, maximum=MAX_K, label="k (top-k cutoffs)", cli="--k"
    )
    n_semi_gold: int = param(DEFAULT_SEMI_GOLD, minimum=1, maximum=10, label="Semi-gold samples")
    temperature: float = param(
        DEFAULT_TEMPERATURE, minimum=0.01, maximum=2.0, label="Semi-gold temperature"
    )
    seed: int = param(0, minimum=0, maximum=MAX_SEED)
    max_new_tokens: int = param(DEFAULT_MAX_NEW_TOKENS, minimum=1, maximum=128)
    batch_size: int = param(DEFAULT_BATCH_SIZE, minimum=1, maximum=MAX_BATCH_SIZE, form=False)
    # None: every question.
    max_questions: int | None = param(
        None, minimum=1, maximum=MAX_QUESTIONS, help="empty: every question with gold passages"
    )

    def as_params(self, run: Run | None = None) -> dict[str, Any]:
        """The JSON params of a job; the run's name is kept for display only."""
        return {"run": run.name if run else None, **asdict(self), "ks": list(self.ks)}

    def semi_gold(self) -> SemiGoldSettings:
        return SemiGoldSettings(self.n_semi_gold, self.temperature, self.seed, self.max_new_tokens)
