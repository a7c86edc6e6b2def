"""Agreement between metrics: Kendall tau between the system rankings two metrics induce
(CRUX Table 1 / Figure 5), pairwise over several metrics.

Each metric is a map system -> score (None = undefined for that system). Systems undefined
under either metric are left out and counted. tau is scipy's tau-b (ties handled), computed on
the scores, which is the tau of the induced rankings. It is undefined (None, with a reason),
never 0, for fewer than 2 common systems or a metric constant across them, and not measured
(None, ``too_few`` set) for fewer than ``MIN_RANKED`` systems: between 2 runs tau is +1 or -1
whatever the metrics, and 3 runs allow only 4 values, so a figure would read as agreement that
was never tested.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau

TOO_FEW = "fewer than 2 systems scored by both metrics"
MIN_RANKED = 4  # systems a run-ranking agreement needs before it is measured


def not_measurable(n: int) -> str:
    """What a page says instead of a tau between the rankings of ``n`` < MIN_RANKED runs."""
    return (
        f"run-ranking agreement is not measurable with {n} run{'s' if n != 1 else ''} "
        f"(needs at least {MIN_RANKED})"
    )


@dataclass(frozen=True)
class TauResult:
    tau: float | None
    p_value: float | None
    n: int  # systems compared
    dropped: int  # systems left out because a metric is undefined (or absent) for them
    reason: str | None
    too_few: bool = False  # not measured: fewer than MIN_RANKED systems (``reason`` says so)


def kendall_tau(
    metric_a: Mapping[str, float | None],
    metric_b: Mapping[str, float | None],
    names: tuple[str, str] = ("metric a", "metric b"),
    min_ranked: int = MIN_RANKED,
) -> TauResult:
    """Kendall tau-b between the system rankings induced by two metrics (not measured below
    ``min_ranked`` common systems)."""

    def defined(x: float | None) -> bool:
        return x is not None and not math.isnan(x)

    common = metric_a.keys() & metric_b.keys()
    systems = sorted(s for s in common if defined(metric_a[s]) and defined(metric_b[s]))
    dropped = len(metric_a.keys() | metric_b.keys()) - len(systems)
    n = len(systems)
    if n < 2:
        return TauResult(None, None, n, dropped, TOO_FEW)
    a = np.array([metric_a[s] for s in systems], dtype=np.float64)
    b = np.array([metric_b[s] for s in systems], dtype=np.float64)
    constant = [name for name, x in zip(names, (a, b), strict=True) if np.all(x == x[0])]
    constant = list(dict.fromkeys(constant))  # the diagonal names one metric twice
    if constant:
        reason = f"{' and '.join(constant)} constant across systems"
        return TauResult(None, None, n, dropped, reason)
    if n < min_ranked:
        return TauResult(None, None, n, dropped, not_measurable(n), too_few=True)
    result = kendalltau(a, b)
    return TauResult(float(result.statistic), float(result.pvalue), n, dropped, None)


@dataclass(frozen=True)
class AgreementMatrix:
    """Pairwise Kendall tau between metrics; ``taus[(a, b)]`` for every ordered pair."""

    names: list[str]
    taus: dict[tuple[str, str], TauResult]

    @property
    def too_few_runs(self) -> int | None:
        """The most systems any pair compared, when every pair that had 2 or more to compare
        had fewer than MIN_RANKED (nothing measurable); None otherwise."""
        results = self.taus.values()
        if not any(t.too_few for t in results) or any(t.tau is not None for t in results):
            return None
        return max(t.n for t in results if t.too_few)

    def as_array(self) -> np.ndarray:
        """Square tau matrix in ``names`` order, NaN where undefined."""
        out = np.full((len(self.names), len(self.names)), np.nan)
        for i, a in enumerate(self.names):
            for j, b in enumerate(self.names):
                tau = self.taus[(a, b)].tau
                out[i, j] = np.nan if tau is None else tau
        return out


def kendall_matrix(
    metrics: Mapping[str, Mapping[str, float | None]],
    order: Sequence[str] | None = None,
    min_ranked: int = MIN_RANKED,
) -> AgreementMatrix:
    """Kendall tau for every pair of metrics (metric name -> system -> score)."""
    names = list(order) if order is not None else list(metrics)
    taus: dict[tuple[str, str], TauResult] = {}
    for i, a in enumerate(names):
        for b in names[i:]:
            result = kendall_tau(metrics[a], metrics[b], (a, b), min_ranked)
            taus[(a, b)] = taus[(b, a)] = result
    return AgreementMatrix(names, taus)
