"""One figure of the agreement report, defined or undefined with a reason; no Django."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from evaluation.agreement.method.bootstrap import Bootstrap

TOO_FEW = "fewer than 2 items labelled by both"


@dataclass(frozen=True)
class Stat:
    """One figure: ``value`` is None exactly when ``undefined`` says why."""

    statistic: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int  # items the figure is computed on
    undefined: str | None = None
    note: str | None = None
    n_pairs: int | None = None  # label pairs, where several pairs come from one item

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def undefined(statistic: str, n: int, reason: str, n_pairs: int | None = None) -> Stat:
    return Stat(statistic, None, None, None, n, reason, None, n_pairs)


def with_interval(
    statistic: str,
    value: float,
    replicates: np.ndarray,
    n: int,
    boot: Bootstrap,
    n_pairs: int | None = None,
    note: str | None = None,
) -> Stat:
    interval = boot.interval(replicates)
    notes = "; ".join(x for x in (note, interval.note) if x) or None
    return Stat(statistic, float(value), interval.low, interval.high, n, None, notes, n_pairs)
