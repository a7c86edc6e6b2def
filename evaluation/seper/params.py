"""A SePer job's parameters, declared once: the start form's fields, ``manage.py
seper_correlations``'s ``--k`` and the job's parsing of its JSON params are made from them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from crux_app.models import Run
from crux_app.parameters import JobParameters, param
from evaluation.seper.sampling import SamplingParams

DEFAULT_K = 5
DEFAULT_N = 10
DEFAULT_BATCH_SIZE = 4
MAX_SEED = 2**32 - 1
MAX_BATCH_SIZE = 512


@dataclass(frozen=True)
class SeperJobParams(JobParameters):
    command: ClassVar[str | None] = "seper_correlations"

    # None: the baseline and the gold passages only.
    run_id: int | None = param(None, describe="a run id", form=False, cli=None)
    k: int = param(DEFAULT_K, minimum=1, maximum=100, label="Top k")
    n_samples: int = param(DEFAULT_N, minimum=1, maximum=100, label="N (samples per prompt)")
    temperature: float = param(1.0, minimum=0.01, maximum=5.0)
    seed: int = param(0, minimum=0, maximum=MAX_SEED)
    batch_size: int = param(DEFAULT_BATCH_SIZE, minimum=1, maximum=MAX_BATCH_SIZE, form=False)

    def as_params(self, run: Run | None = None) -> dict[str, Any]:
        """The JSON params of a job; the run's name is kept for display only."""
        return {"run": run.name if run else None, **asdict(self)}

    def sampling(self) -> SamplingParams:
        return SamplingParams(
            n_samples=self.n_samples, temperature=self.temperature, seed=self.seed
        )
