"""Agreement statistics of labels with bootstrap intervals (METHODS section 6); no Django.

Point estimates come from the established implementations: scikit-learn (Cohen's kappa,
precision / recall / F1), statsmodels (Fleiss' kappa), the krippendorff package (alpha), scipy
(Spearman, Kendall tau-b). scikit-learn is given the distinct label pairs with their counts as
sample weights: the same contingency table it would tally from every pair. Intervals are
percentile bootstraps that resample items (``bootstrap``), evaluated with the same formulas
vectorised over resamples (``sufficient_statistics``). Labels are float arrays with NaN for "no
label"; a pair or unit with a missing label is left out and n counts what is left. A statistic
that is undefined has ``value = None`` and an ``undefined`` reason, never 0. Statistics of
per-item scores (means, proportions, correlations) live in ``score_statistics``.
"""

from __future__ import annotations

from collections.abc import Sequence

import krippendorff as kd
import numpy as np
from scipy.stats import kendalltau, spearmanr
from sklearn import config_context as sklearn_config
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from evaluation.agreement.method import sufficient_statistics as ts
from evaluation.agreement.method.bootstrap import (
    Bootstrap,
    Patterns,
    compress,
    compress_codes,
    compress_groups,
    dense_ids,
)
from evaluation.agreement.method.estimate import TOO_FEW, Stat, undefined, with_interval

# Callers import these from here too (the report, the judge report, CRUX's coverage agreement).
from evaluation.agreement.method.score_statistics import correlations, mean_of, proportion

__all__ = [
    "KRIPPENDORFF_LEVELS",
    "TOO_FEW",
    "TOO_FEW_UNITS",
    "PairedLabels",
    "RaterLabels",
    "Stat",
    "category_index",
    "correlations",
    "mean_of",
    "proportion",
    "undefined",
]

TOO_FEW_UNITS = "fewer than 2 items with at least 2 labels"
KRIPPENDORFF_LEVELS = ("nominal", "ordinal", "interval")


def category_index(values: np.ndarray, categories: np.ndarray, what: str) -> np.ndarray:
    at = np.searchsorted(categories, values)
    at = np.minimum(at, len(categories) - 1)
    wrong = categories[at] != values
    if wrong.any():
        allowed = ", ".join(f"{c:g}" for c in categories)
        raise ValueError(f"{what} has the label {values[wrong][0]:g}, not one of {allowed}")
    return at


def _categories(categories: Sequence[float]) -> np.ndarray:
    cats = np.unique(np.asarray(categories, float))
    if cats.size < 1:
        raise ValueError("categories must not be empty")
    return cats


class PairedLabels:
    """Two raters' labels of the same items: ``a`` is the reference (truth, rows), ``b`` the
    rater under test (prediction, columns). ``items`` groups several pairs into one item
    (pooled references); the bootstrap then resamples items, keeping their pairs together."""

    def __init__(
        self,
        a: Sequence[float],
        b: Sequence[float],
        categories: Sequence[float],
        *,
        items: Sequence[int] | None = None,
        names: tuple[str, str] = ("reference", "rater"),
        bootstrap: Bootstrap | None = None,
    ) -> None:
        a, b = np.asarray(a, float), np.asarray(b, float)
        if a.shape != b.shape or a.ndim != 1:
            raise ValueError(f"label vectors must be 1-D and equally long: {a.shape}, {b.shape}")
        self.categories = _categories(categories)
        self.names = names
        self.boot = bootstrap or Bootstrap()
        keep = ~np.isnan(a) & ~np.isnan(b)
        self.a, self.b = a[keep], b[keep]
        k = len(self.categories)
        # scikit-learn gets category indices 0..K-1: the same figures (its weights are by label
        # index too), and integer labels 0..K-1 skip its per-element Python label mapping.
        self.ia = category_index(self.a, self.categories, names[0])
        self.ib = category_index(self.b, self.categories, names[1])
        self.labels = np.arange(k)
        self._codes = self.ia * k + self.ib
        self._items: np.ndarray | None = None
        if items is None:
            self.n_pairs: int | None = None
            self.n = int(keep.sum())
        else:
            self._items = np.asarray(items)[keep]
            self.n_pairs = int(keep.sum())
            self.n = dense_ids(self._items)[1]
        pairs = np.bincount(self._codes, minlength=k * k)
        self.table = pairs.astype(float).reshape(1, k, k)
        # The distinct (a, b) label pairs and how many pairs have each: what scikit-learn is
        # given (as sample weights), the same counts it would tally from every pair.
        cells = np.flatnonzero(pairs)
        self._pair_a, self._pair_b, self._pair_weight = cells // k, cells % k, pairs[cells]
        self._scores: tuple[np.ndarray, ...] | None = None
        self._replicates: np.ndarray | None = None

    @property
    def replicates(self) -> np.ndarray:
        """(B, K, K) contingency tables of the bootstrap resamples (items, with their pairs),
        drawn on first use: a judge comparison reads only the point estimate."""
        if self._replicates is None:
            k = len(self.categories)
            if self._items is None:
                patterns = compress_codes(self._codes, k * k)
            else:
                patterns = compress_groups(self._items, self._codes, k * k)
            self._replicates = self.boot.totals(patterns).reshape(-1, k, k)
        return self._replicates

    def _sklearn(self, metric, **kwargs):
        """A scikit-learn metric of the label pairs, given as distinct pairs with weights.

        Its argument checks are skipped: the arrays are built here (finite category indices,
        integer weights), and the checks cost more than the metric (about 1 ms a call)."""
        with sklearn_config(skip_parameter_validation=True, assume_finite=True):
            return metric(
                self._pair_a,
                self._pair_b,
                labels=self.labels,
                sample_weight=self._pair_weight,
                **kwargs,
            )

    def _too_few(self, statistic: str) -> Stat | None:
        if self.n < 2:
            return undefined(statistic, self.n, TOO_FEW, self.n_pairs)
        return None

    def _result(self, statistic: str, value: float, fn, note: str | None = None) -> Stat:
        return with_interval(
            statistic, value, fn(self.replicates), self.n, self.boot, self.n_pairs, note
        )

    def _single_category(self) -> str | None:
        used = np.union1d(self.a, self.b)
        if used.size == 1:
            return f"a single category: both give every item the label {used[0]:g}"
        return None

    def cohen_kappa(self, weights: str | None = None, statistic: str | None = None) -> Stat:
        """Cohen's kappa (``weights`` None, "linear" or "quadratic")."""
        name = statistic or ("cohen_kappa" if weights is None else f"cohen_kappa_{weights}")
        if (few := self._too_few(name)) is not None:
            return few
        if np.isnan(ts.kappa(self.table, weights)[0]):
            reason = self._single_category() or "chance agreement is 1"
            return undefined(name, self.n, reason, self.n_pairs)
        value = self._sklearn(cohen_kappa_score, weights=weights)
        return self._result(name, value, lambda t: ts.kappa(t, weights))

    def percent_agreement(self, statistic: str = "percent_agreement") -> Stat:
        """Share of pairs with the same label."""
        if self.n < 1:
            return undefined(statistic, self.n, "no item labelled by both", self.n_pairs)
        return self._result(statistic, float(np.mean(self.a == self.b)), ts.accuracy)

    def _constant(self) -> str | None:
        for name, x in zip(self.names, (self.a, self.b), strict=True):
            if np.all(x == x[0]):
                return f"{name} gives every item the same label ({x[0]:g})"
        return None

    def spearman(self, statistic: str = "spearman") -> Stat:
        if (few := self._too_few(statistic)) is not None:
            return few
        if (reason := self._constant()) is not None:
            return undefined(statistic, self.n, reason, self.n_pairs)
        value = spearmanr(self.a, self.b).statistic
        return self._result(statistic, value, ts.spearman)

    def kendall(self, statistic: str = "kendall_tau_b") -> Stat:
        if (few := self._too_few(statistic)) is not None:
            return few
        if (reason := self._constant()) is not None:
            return undefined(statistic, self.n, reason, self.n_pairs)
        value = kendalltau(self.a, self.b).statistic
        return self._result(statistic, value, ts.kendall_b)

    def class_scores(self, category: float, label: str) -> list[Stat]:
        """Precision, recall and F1 of one class, ``a`` taken as the truth."""
        names = [f"{m}_{label}" for m in ("precision", "recall", "f1")]
        if self.n < 1:
            return [undefined(x, 0, "no item labelled by both", self.n_pairs) for x in names]
        index = int(category_index(np.array([float(category)]), self.categories, "class")[0])
        if self._scores is None:  # one scikit-learn call for every class
            self._scores = self._sklearn(precision_recall_fscore_support, zero_division=np.nan)[:3]
        p, r, f = (x[index : index + 1] for x in self._scores)
        reasons = {
            names[0]: f"{self.names[1]} never gives the label {category:g} ({label})",
            names[1]: f"{self.names[0]} never gives the label {category:g} ({label})",
        }
        reasons[names[2]] = reasons[names[0]] if np.isnan(p[0]) else reasons[names[1]]
        out = []
        for i, (name, value) in enumerate(zip(names, (p[0], r[0], f[0]), strict=True)):
            if np.isnan(value):
                out.append(undefined(name, self.n, reasons[name], self.n_pairs))
                continue
            out.append(
                self._result(name, value, lambda t, i=i: ts.class_scores(t, index)[i])  # noqa: B023
            )
        return out

    def confusion(self) -> np.ndarray:
        """Counts of (reference label, rater label) pairs, in category order."""
        # The tally scikit-learn's confusion_matrix makes (a test checks they agree).
        return self.table[0].astype(np.int64)


class RaterLabels:
    """Several raters' labels of the same items: (items, raters) with NaN for "no label".

    Fleiss' kappa needs the same number of labels on every item: it is computed on the items
    with the most common count m >= 2 (and says how many others it left out); Krippendorff's
    alpha and percent agreement use every item with at least 2 labels.
    """

    def __init__(
        self,
        ratings: np.ndarray,
        categories: Sequence[float],
        bootstrap: Bootstrap | None = None,
    ) -> None:
        ratings = np.asarray(ratings, float)
        if ratings.ndim != 2:
            raise ValueError(f"ratings must be (items, raters), got shape {ratings.shape}")
        self.categories = _categories(categories)
        self.boot = bootstrap or Bootstrap()
        labelled = ~np.isnan(ratings)
        category_index(ratings[labelled], self.categories, "ratings")
        counts = (ratings[:, :, None] == self.categories[None, None, :]).sum(axis=1)
        self.value_counts = counts[counts.sum(axis=1) >= 2]
        self.n = len(self.value_counts)
        self.patterns = _count_patterns(self.value_counts)
        self.draws = self.boot.draws(self.patterns)

    def _single_value(self) -> str | None:
        used = self.categories[self.value_counts.sum(axis=0) > 0]
        if used.size == 1:
            return f"a single category: every label is {used[0]:g}"
        return None

    def percent_agreement(self, statistic: str = "percent_agreement") -> Stat:
        """Mean over items of the share of their rater pairs that agree."""
        if self.n < 1:
            return undefined(statistic, 0, "no item with at least 2 labels")
        per_item = ts.pairwise_agreement(self.patterns.rows)
        value = float(np.mean(ts.pairwise_agreement(self.value_counts)))
        replicates = (self.draws @ per_item) / self.n
        return with_interval(statistic, value, replicates, self.n, self.boot)

    def fleiss_kappa(self, statistic: str = "fleiss_kappa") -> Stat:
        m_items = self.value_counts.sum(axis=1)
        if self.n < 2:
            return undefined(statistic, self.n, TOO_FEW_UNITS)
        sizes, freq = np.unique(m_items, return_counts=True)
        m = int(sizes[freq == freq.max()].max())
        table = self.value_counts[m_items == m]
        note = None
        if len(table) < self.n:
            note = f"on the items with {m} labels ({self.n - len(table)} others left out)"
        if len(table) < 2:
            return undefined(statistic, len(table), f"fewer than 2 items with {m} labels")
        used = self.categories[table.sum(axis=0) > 0]
        if used.size == 1:
            reason = f"a single category: every label is {used[0]:g}"
            return undefined(statistic, len(table), reason)
        value = sm_fleiss_kappa(table, method="fleiss")
        rows = self.patterns.rows
        full = rows.sum(axis=1) == m
        contrib = np.hstack([rows, (rows**2).sum(axis=1, keepdims=True), np.ones((len(rows), 1))])
        totals = self.draws[:, full] @ contrib[full]
        v = rows.shape[1]
        replicates = ts.fleiss(totals[:, :v], totals[:, v], totals[:, v + 1], m)
        return with_interval(statistic, value, replicates, len(table), self.boot, note=note)

    def krippendorff_alpha(self, level: str, statistic: str | None = None) -> Stat:
        if level not in KRIPPENDORFF_LEVELS:
            raise ValueError(f"level must be one of {KRIPPENDORFF_LEVELS}, got {level!r}")
        name = statistic or f"krippendorff_alpha_{level}"
        if self.n < 2:
            return undefined(name, self.n, TOO_FEW_UNITS)
        if (reason := self._single_value()) is not None:
            return undefined(name, self.n, reason)
        value = kd.alpha(
            value_counts=self.value_counts,
            value_domain=self.categories,
            level_of_measurement=level,
        )
        v = len(self.categories)
        unit = ts.unit_coincidences(self.patterns.rows).reshape(-1, v * v)
        coincidences = (self.draws @ unit).reshape(-1, v, v)
        replicates = ts.krippendorff(coincidences, self.categories, level)
        return with_interval(name, value, replicates, self.n, self.boot)


def _count_patterns(value_counts: np.ndarray) -> Patterns:
    """Distinct category-count rows; encoded as one integer per item when that fits."""
    if value_counts.size == 0:
        return Patterns(np.zeros((0, value_counts.shape[1])), np.zeros(0, np.int64))
    base = int(value_counts.max()) + 1
    v = value_counts.shape[1]
    if v * np.log2(base) >= 62:
        return compress(value_counts)
    weights = base ** np.arange(v, dtype=np.int64)
    codes, first, counts = np.unique(
        value_counts.astype(np.int64) @ weights, return_index=True, return_counts=True
    )
    return Patterns(value_counts[first].astype(float), counts)
