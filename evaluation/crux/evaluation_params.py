"""The parameters of a CRUX evaluation (``evaluate``), apart from it so that the per-topic
computation (``topic_evaluation``) and the evaluation that assembles it both read them."""

from __future__ import annotations

from dataclasses import dataclass, fields

from crux_app.inputs import EvaluationInputError
from evaluation.crux.method.alpha_ndcg import DEFAULT_ALPHA
from evaluation.crux.method.density import DEFAULT_GAMMA
from evaluation.leaderboard.columns import K_ORACLE, LeaderboardParams


@dataclass(frozen=True)
class EvaluationParams:
    judge: str | None = None  # judge name; None = crux_app.judge_choice's default
    tau: float = 3.0
    k: int | str = 10  # or K_ORACLE: |O| per topic
    qrels_source: str | None = None  # None = the source with the most rows
    run: str | None = None  # None = every run
    missing_as_zero: bool = False
    min_relevance: int = 1
    tokenizer: str | None = None  # None = the configured one (token_counts)
    gamma: float = DEFAULT_GAMMA
    alpha: float = DEFAULT_ALPHA

    @classmethod
    def from_leaderboard(cls, params: LeaderboardParams, **extra: object) -> EvaluationParams:
        """The evaluation of the leaderboard's parameters (judge, tau, k, qrels source...)."""
        shared = {f.name: getattr(params, f.name) for f in fields(LeaderboardParams)}
        return cls(**shared, **extra)

    def leaderboard(self) -> LeaderboardParams:
        """The parameters the leaderboard's columns read."""
        return LeaderboardParams(
            **{f.name: getattr(self, f.name) for f in fields(LeaderboardParams)}
        )

    def __post_init__(self) -> None:
        if self.k != K_ORACLE and not (isinstance(self.k, int) and self.k >= 1):
            raise EvaluationInputError(f"k must be an integer >= 1 or {K_ORACLE!r}, got {self.k!r}")
        if not 0 < self.tau <= 5:
            raise EvaluationInputError(f"tau must lie in (0, 5], got {self.tau}")
        if self.min_relevance < 1:
            raise EvaluationInputError(f"min_relevance must be >= 1, got {self.min_relevance}")
