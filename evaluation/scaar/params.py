"""A SCAAR job's parameters, declared once: the start form's fields, ``manage.py scaar``'s
options and the job's parsing of its JSON params are made from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from crux_app.parameters import JobParameters, param
from evaluation.scaar.method.contributions import ScaarSettings

DEFAULT_K = 3  # passages per query, as the paper retrieves
DEFAULT_BATCH_SIZE = 4
MAX_BATCH_SIZE = 512
WEIGHTING_CHOICES = (
    ("raw", "exp(r) · θ0 (Eq. 3 as printed)"),
    ("normalised", "exp(r') · θ0 (normalised contribution)"),
)


@dataclass(frozen=True)
class ScaarJobParams(JobParameters):
    command: ClassVar[str | None] = "scaar"

    theta0: float = param(0.8, minimum=0.01, maximum=1.0, label="θ0")
    alpha: float = param(0.5, minimum=0.01, maximum=1.0, label="α (share of words PFQ keeps)")
    weighting: str = param("raw", choices=WEIGHTING_CHOICES)
    k: int = param(DEFAULT_K, minimum=1, maximum=20, label="Passages per query")
    refine: bool = param(
        True, label="Regenerate answers with gold answers from the retrieved passages (S_eff)"
    )
    # Only the outputs of this system; None: every output. The form lists the systems itself.
    system: str | None = param(
        None, max_length=200, describe="a system name", form=False, help="only these outputs"
    )
    batch_size: int = param(DEFAULT_BATCH_SIZE, minimum=1, maximum=MAX_BATCH_SIZE, form=False)

    def settings(self) -> ScaarSettings:
        return ScaarSettings(theta0=self.theta0, alpha=self.alpha, weighting=self.weighting)

    def identity(self) -> dict[str, Any]:
        """The settings a row depends on (not which outputs a job picked, nor batching)."""
        return {
            "theta0": self.theta0,
            "alpha": self.alpha,
            "weighting": self.weighting,
            "k": self.k,
            "refine": self.refine,
        }
