"""Do two judges rank the runs alike? Kendall tau and tau-AP between the run rankings they induce,
bootstrap intervals over topics, the per-topic tau, and the run pairs they order differently.

Input: per-(run, topic) scores of the same runs on the same topics under judge A and judge B,
two (R, T) arrays with a value everywhere (the caller keeps the topics every run has a score on
under both judges). A run's score under a judge is its mean over the T topics; higher is better.

- Kendall tau: ``scipy.stats.kendalltau`` (tau-b, ties in either ranking corrected) of the two
  vectors of run means; undefined (None) when either ranking ties every run.
- tau-AP: ``tau_ap.tau_ap`` of one judge's ranking against the other's as the truth (``truth``
  names the reference judge, B by default), and the symmetric mean of both directions.
- Bootstrap: topics are resampled with replacement (``resamples`` times, seeded); each resample
  recomputes the run means and both coefficients; the interval is the percentile interval at
  ``level`` over the resamples where the coefficient is defined. With one topic there is no
  interval (every resample is the same).
- Per topic: Kendall tau-b between the runs' scores on that topic alone (None where either judge
  ties every run on it), and its distribution.
- Fewer than ``MIN_RANKED`` runs (``evaluation.shared.metric_agreement``'s): no coefficient is
  measured (tau, tau-AP, their intervals and the per-topic taus are None / NaN and
  ``not_measurable`` says why): between two runs tau is +1 or -1 whatever the judges think.
- Swaps: the run pairs the two judges order strictly differently (a pair tied under either is
  not a swap). Each says whether its difference is significant under each judge by a two-sided
  paired t-test over the topics (``scipy.stats.ttest_rel``, the usual test for IR system
  comparisons) at ``alpha``; the tests are not corrected for multiple comparisons.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy.stats import kendalltau, ttest_rel

from evaluation.judge_report.method.tau_ap import tau_ap, tau_ap_columns, tau_ap_symmetric
from evaluation.shared.metric_agreement import MIN_RANKED, not_measurable

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95
DEFAULT_ALPHA = 0.05
SIGNIFICANCE_TEST = "two-sided paired t-test over topics (scipy.stats.ttest_rel), uncorrected"
_CHUNK = 256  # resamples per vectorised batch at most
_CELLS = 4_000_000  # run x run x resample cells per batch (tau-AP's boolean tensors)


def _number(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float | None:
    """scipy's Kendall tau-b; None (not NaN and a warning) where either side ties every item."""
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return _number(kendalltau(x, y).statistic)


def tau_b_columns(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall tau-b between x[:, c] and y[:, c] for every column c of two (n, M) arrays,
    NaN where either column ties every item (scipy's kendalltau, vectorised)."""
    i, j = np.triu_indices(x.shape[0], 1)
    sx = np.sign(x[i] - x[j]).astype(np.int8)
    sy = np.sign(y[i] - y[j]).astype(np.int8)
    pairs = i.size
    untied_x = pairs - (sx == 0).sum(axis=0)
    untied_y = pairs - (sy == 0).sum(axis=0)
    score = (sx.astype(np.int64) * sy).sum(axis=0)
    denominator = np.sqrt(untied_x.astype(np.float64) * untied_y)
    return np.divide(score, denominator, out=np.full(x.shape[1], np.nan), where=denominator > 0)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    n_defined: int  # resamples where the coefficient is defined

    def as_list(self) -> list[float]:
        return [self.low, self.high]


def _percentile(values: np.ndarray, level: float) -> Interval | None:
    defined = values[np.isfinite(values)]
    if defined.size == 0:
        return None
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(defined, [tail, 100.0 - tail])
    return Interval(float(low), float(high), int(defined.size))


@dataclass(frozen=True)
class Bootstrap:
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = DEFAULT_LEVEL

    def __post_init__(self) -> None:
        if self.resamples < 0:
            raise ValueError(f"resamples must be >= 0, got {self.resamples}")
        if not 0 < self.level < 1:
            raise ValueError(f"level must lie in (0, 1), got {self.level}")


Truth = Literal["a", "b"]


def _tau_ap(mean_a: np.ndarray, mean_b: np.ndarray, truth: Truth) -> float | None:
    return tau_ap(mean_a, mean_b) if truth == "b" else tau_ap(mean_b, mean_a)


def _chunk(n_runs: int) -> int:
    """Resamples per vectorised batch: about _CELLS run-pair cells in memory at once."""
    return max(1, min(_CHUNK, _CELLS // (n_runs * n_runs)))


def bootstrap_intervals(
    a: np.ndarray, b: np.ndarray, boot: Bootstrap, truth: Truth = "b"
) -> tuple[Interval | None, Interval | None]:
    """Percentile intervals of Kendall tau and tau-AP over topic resamples."""
    n_topics = a.shape[1]
    if boot.resamples == 0 or n_topics < 2:
        return None, None
    rng = np.random.default_rng(boot.seed)
    counts = rng.multinomial(n_topics, np.full(n_topics, 1.0 / n_topics), size=boot.resamples)
    taus, taps = np.empty(boot.resamples), np.empty(boot.resamples)
    step = _chunk(a.shape[0])
    for start in range(0, boot.resamples, step):
        weights = counts[start : start + step].T / n_topics  # (T, chunk)
        mean_a, mean_b = a @ weights, b @ weights
        done = slice(start, start + weights.shape[1])
        taus[done] = tau_b_columns(mean_a, mean_b)
        taps[done] = (
            tau_ap_columns(mean_a, mean_b) if truth == "b" else tau_ap_columns(mean_b, mean_a)
        )
    return _percentile(taus, boot.level), _percentile(taps, boot.level)


@dataclass(frozen=True)
class Swap:
    """Two runs the judges order differently: ``first`` is ahead under judge A."""

    first: str
    second: str
    diff_a: float  # mean score difference first - second under A (> 0)
    diff_b: float  # the same under B (< 0)
    p_a: float | None  # paired t-test over topics; None where undefined (one topic, no spread)
    p_b: float | None
    significant_a: bool
    significant_b: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "run_1": self.first,
            "run_2": self.second,
            "diff_a": self.diff_a,
            "diff_b": self.diff_b,
            "p_a": self.p_a,
            "p_b": self.p_b,
            "significant_a": self.significant_a,
            "significant_b": self.significant_b,
        }


def _paired_p(scores: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    if scores.shape[1] < 2 or i.size == 0:
        return np.full(i.size, np.nan)
    # Differences without spread give t = +-inf (p = 0) or 0/0 (NaN: undefined); scipy warns.
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(ttest_rel(scores[i], scores[j], axis=1).pvalue, dtype=np.float64)


def swaps(
    runs: Sequence[str], a: np.ndarray, b: np.ndarray, alpha: float = DEFAULT_ALPHA
) -> list[Swap]:
    """The run pairs ordered strictly differently by the two judges' means, the pairs both
    judges' tests call significant first, then by the larger p-value."""
    mean_a, mean_b = a.mean(axis=1), b.mean(axis=1)
    i, j = np.triu_indices(len(runs), 1)
    discordant = np.sign(mean_a[i] - mean_a[j]) * np.sign(mean_b[i] - mean_b[j]) < 0
    i, j = i[discordant], j[discordant]
    ahead = mean_a[i] > mean_a[j]  # order each pair so that ``first`` leads under A
    first, second = np.where(ahead, i, j), np.where(ahead, j, i)
    p_a, p_b = _paired_p(a, first, second), _paired_p(b, first, second)
    out = []
    for f, s, pa, pb in zip(first, second, p_a, p_b, strict=True):
        pa_, pb_ = _number(pa), _number(pb)
        out.append(
            Swap(
                runs[f],
                runs[s],
                float(mean_a[f] - mean_a[s]),
                float(mean_b[f] - mean_b[s]),
                pa_,
                pb_,
                pa_ is not None and pa_ < alpha,
                pb_ is not None and pb_ < alpha,
            )
        )

    def order(swap: Swap) -> tuple[float, str, str]:
        worst = max(1.0 if p is None else p for p in (swap.p_a, swap.p_b))
        return worst, swap.first, swap.second

    return sorted(out, key=order)


@dataclass(frozen=True)
class TauSummary:
    """The distribution of the per-topic taus (over the topics where tau is defined)."""

    n_topics: int
    n_defined: int
    mean: float | None
    median: float | None
    q1: float | None
    q3: float | None
    minimum: float | None
    maximum: float | None

    @classmethod
    def of(cls, taus: np.ndarray) -> TauSummary:
        defined = taus[np.isfinite(taus)]
        if defined.size == 0:
            return cls(int(taus.size), 0, None, None, None, None, None, None)
        q1, median, q3 = np.percentile(defined, [25, 50, 75])
        return cls(
            int(taus.size),
            int(defined.size),
            float(defined.mean()),
            float(median),
            float(q1),
            float(q3),
            float(defined.min()),
            float(defined.max()),
        )


@dataclass(frozen=True)
class RankingAgreement:
    runs: list[str]
    mean_a: np.ndarray  # (R,) run means under A
    mean_b: np.ndarray
    n_topics: int
    kendall_tau: float | None
    kendall_tau_ci: Interval | None
    tau_ap: float | None  # the other judge's ranking against the truth judge's
    truth: Truth
    tau_ap_ci: Interval | None
    tau_ap_symmetric: float | None
    per_topic_tau: np.ndarray  # (T,) NaN where undefined
    per_topic_summary: TauSummary
    swaps: list[Swap] = field(default_factory=list)
    not_measurable: str = ""  # why no coefficient is measured (too few runs), else ""

    @property
    def n_runs(self) -> int:
        return len(self.runs)


def ranking_agreement(
    runs: Sequence[str],
    a: np.ndarray,
    b: np.ndarray,
    boot: Bootstrap | None = None,
    alpha: float = DEFAULT_ALPHA,
    truth: Truth = "b",
    min_runs: int = MIN_RANKED,
) -> RankingAgreement:
    """Every figure of the module for runs x topics score arrays ``a`` and ``b``; ``truth``
    names the reference ranking of tau-AP; below ``min_runs`` runs no coefficient is
    measured (``not_measurable`` says why)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(
            f"a and b must be (runs, topics) arrays of one shape: {a.shape}, {b.shape}"
        )
    if a.shape[0] != len(runs):
        raise ValueError(f"{len(runs)} run names for {a.shape[0]} rows of scores")
    if a.shape[0] < 2 or a.shape[1] < 1:
        raise ValueError(f"need at least 2 runs and 1 topic, got {a.shape[0]} and {a.shape[1]}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("every run needs a score on every topic under both judges")
    boot = boot or Bootstrap()
    mean_a, mean_b = a.mean(axis=1), b.mean(axis=1)
    if truth not in ("a", "b"):
        raise ValueError(f"truth must be 'a' or 'b', got {truth!r}")
    if a.shape[0] < min_runs:
        per_topic = np.full(a.shape[1], np.nan)
        return RankingAgreement(
            runs=list(runs),
            mean_a=mean_a,
            mean_b=mean_b,
            n_topics=int(a.shape[1]),
            kendall_tau=None,
            kendall_tau_ci=None,
            tau_ap=None,
            truth=truth,
            tau_ap_ci=None,
            tau_ap_symmetric=None,
            per_topic_tau=per_topic,
            per_topic_summary=TauSummary.of(per_topic),
            swaps=swaps(runs, a, b, alpha),
            not_measurable=not_measurable(a.shape[0]),
        )
    tau_ci, tap_ci = bootstrap_intervals(a, b, boot, truth)
    per_topic = tau_b_columns(a, b)
    return RankingAgreement(
        runs=list(runs),
        mean_a=mean_a,
        mean_b=mean_b,
        n_topics=int(a.shape[1]),
        kendall_tau=kendall_tau(mean_a, mean_b),
        kendall_tau_ci=tau_ci,
        tau_ap=_tau_ap(mean_a, mean_b, truth),
        truth=truth,
        tau_ap_ci=tap_ci,
        tau_ap_symmetric=tau_ap_symmetric(mean_a, mean_b),
        per_topic_tau=per_topic,
        per_topic_summary=TauSummary.of(per_topic),
        swaps=swaps(runs, a, b, alpha),
    )
