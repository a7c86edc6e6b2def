"""Two judges side by side against the same reference labels; no Django.

Both judges are scored on the items that the reference and both judges labelled. The
interval of the difference is a paired bootstrap: each resample takes the same items for both
judges, so what the judges share (the items' difficulty) cancels out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.agreement.method import sufficient_statistics as ts
from evaluation.agreement.method.bootstrap import Bootstrap, compress_groups
from evaluation.agreement.method.label_agreement import (
    PairedLabels,
    Stat,
    category_index,
    undefined,
)

# statistic -> (its value on PairedLabels, its vectorised form on (B, K, K) tables)
COMPARABLE: dict[str, tuple[Callable[[PairedLabels], Stat], Callable]] = {
    "cohen_kappa": (lambda p: p.cohen_kappa(), lambda t: ts.kappa(t)),
    "cohen_kappa_quadratic": (
        lambda p: p.cohen_kappa("quadratic"),
        lambda t: ts.kappa(t, "quadratic"),
    ),
    "percent_agreement": (lambda p: p.percent_agreement(), ts.accuracy),
    "spearman": (lambda p: p.spearman(), ts.spearman),
}


@dataclass(frozen=True)
class Comparison:
    a: Stat
    b: Stat
    difference: Stat  # a - b


def compare_judges(
    reference: Sequence[float],
    a: Sequence[float],
    b: Sequence[float],
    categories: Sequence[float],
    statistic: str,
    *,
    items: Sequence[int] | None = None,
    names: tuple[str, str] = ("judge a", "judge b"),
    boot: Bootstrap | None = None,
) -> Comparison:
    """``statistic`` of judge a and of judge b against ``reference``, and a - b."""
    return compare_judges_on(
        reference, a, b, categories, [statistic], items=items, names=names, boot=boot
    )[statistic]


def compare_judges_on(
    reference: Sequence[float],
    a: Sequence[float],
    b: Sequence[float],
    categories: Sequence[float],
    statistics: Sequence[str],
    *,
    items: Sequence[int] | None = None,
    names: tuple[str, str] = ("judge a", "judge b"),
    boot: Bootstrap | None = None,
) -> dict[str, Comparison]:
    """``compare_judges`` for several statistics of the same labels: the items are merged and
    resampled once, and every statistic is read off the same resampled tables."""
    unknown = [s for s in statistics if s not in COMPARABLE]
    if unknown:
        raise ValueError(f"statistic must be one of {sorted(COMPARABLE)}, got {unknown[0]!r}")
    boot = boot or Bootstrap()
    ref, a, b = (np.asarray(x, float) for x in (reference, a, b))
    keep = ~np.isnan(ref) & ~np.isnan(a) & ~np.isnan(b)
    item = np.arange(len(ref)) if items is None else np.asarray(items)
    ref, a, b, item = ref[keep], a[keep], b[keep], item[keep]
    paired = {
        name: PairedLabels(
            ref, x, categories, items=item, names=("reference", name), bootstrap=boot
        )
        for name, x in zip(names, (a, b), strict=True)
    }
    n = paired[names[0]].n
    out: dict[str, Comparison] = {}
    totals = None
    for statistic in statistics:
        value_of, vectorised = COMPARABLE[statistic]
        sa, sb = (value_of(paired[name]) for name in names)
        name = f"{statistic}_difference"
        why = _undefined_for(names, (sa, sb))
        if why is not None:
            out[statistic] = Comparison(sa, sb, undefined(name, n, why))
            continue
        cats = paired[names[0]].categories
        k = len(cats)
        if totals is None:
            totals = _paired_totals(ref, a, b, item, cats, boot)
        replicates = vectorised(totals[:, : k * k].reshape(-1, k, k)) - vectorised(
            totals[:, k * k :].reshape(-1, k, k)
        )
        interval = boot.interval(replicates)
        difference = Stat(
            name, sa.value - sb.value, interval.low, interval.high, n, None, interval.note
        )
        out[statistic] = Comparison(sa, sb, difference)
    return out


def _undefined_for(names: tuple[str, str], stats: tuple[Stat, Stat]) -> str | None:
    """Why the difference is undefined: the first judge whose own figure is undefined."""
    for who, s in zip(names, stats, strict=True):
        if s.value is None:
            return f"undefined for {who}: {s.undefined}"
    return None


def _paired_totals(ref, a, b, item, cats: np.ndarray, boot: Bootstrap) -> np.ndarray:
    """(B, 2 K K) resampled contingency tables of judge a and judge b side by side: one
    resample takes the same items for both."""
    k = len(cats)
    ref_index = category_index(ref, cats, "reference")
    codes = [
        offset + ref_index * k + category_index(x, cats, "judge")
        for offset, x in ((0, a), (k * k, b))
    ]
    patterns = compress_groups(np.r_[item, item], np.concatenate(codes), 2 * k * k)
    return boot.totals(patterns)
