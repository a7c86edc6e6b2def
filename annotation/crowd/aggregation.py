"""Crowd label aggregation models: several workers' labels of each item as one label per item,
with its confidence, and each worker's estimated skill and confusion matrix (no Django).

The methods are crowd-kit's (Toloka, 1.4.2) where it works with the installed libraries, and
this module's own where it does not: crowd-kit's ``Wawa`` raises with scikit-learn >= 1.6
(``__sklearn_tags__``), so ``wawa`` is written here (weighted majority vote, each worker
weighted by their agreement with the plain majority, as crowd-kit's ``Wawa`` does).

Labels are categories for every method: a 0-5 rating is six unordered classes (a 4 given for a
5 counts as wrong as a 0). Confidence is the model's posterior probability of the chosen label;
``skill`` is the model's estimate of the worker's accuracy, the posterior probability that the
worker's labels are right, averaged over their labels; the confusion matrix of a worker is
P(label given | true label) under the same posteriors (Dawid-Skene's own M-step). Inputs are
sorted before fitting, and MACE (the only randomised method) takes the seed, so a fixed seed
and the same labels give the same output.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import pandas as pd

Labels = Mapping[Hashable, Mapping[Hashable, Hashable]]  # item -> worker -> label

# method -> (what it is, whose implementation)
METHODS: dict[str, tuple[str, str]] = {
    "majority": ("majority vote (ties: the smallest label)", "crowd-kit MajorityVote"),
    "wawa": ("majority vote weighted by agreement with the majority", "annotation (own)"),
    "dawid_skene": ("Dawid-Skene: a confusion matrix per worker, EM", "crowd-kit DawidSkene"),
    "one_coin_dawid_skene": (
        "one-coin Dawid-Skene: one accuracy per worker, EM",
        "crowd-kit OneCoinDawidSkene",
    ),
    "glad": ("GLAD: worker expertise and item difficulty", "crowd-kit GLAD"),
    "mace": (
        "MACE: each worker's spamming probability, variational EM, 2 restarts",
        "crowd-kit MACE",
    ),
}
N_ITER = 100
# crowd-kit's MACE costs the same per iteration whatever the size (pandas' overhead, ~0.1 s):
# two restarts instead of its default ten keep a run near ten seconds.
MACE_RESTARTS = 2


@dataclass(frozen=True)
class WorkerModel:
    skill: float  # estimated accuracy in [0, 1]
    n_labels: int
    confusion: dict[Hashable, dict[Hashable, float]]  # true label -> label given -> P


@dataclass(frozen=True)
class Aggregate:
    method: str
    labels: dict[Hashable, Hashable]  # item -> aggregated label
    confidence: dict[Hashable, float]  # item -> posterior of that label
    n_labels: dict[Hashable, int]  # item -> labels it had
    workers: dict[Hashable, WorkerModel]
    classes: tuple[Hashable, ...]


class AggregationError(ValueError):
    pass


def _frame(labels: Labels) -> pd.DataFrame:
    rows = [
        (str(item), str(worker), label)
        for item, by_worker in labels.items()
        for worker, label in by_worker.items()
        if label is not None
    ]
    if not rows:
        raise AggregationError("no labels to aggregate")
    frame = pd.DataFrame(rows, columns=["task", "worker", "label"])
    return frame.sort_values(["task", "worker"], kind="stable").reset_index(drop=True)


def _wawa(frame: pd.DataFrame) -> pd.DataFrame:
    """Posteriors of weighted majority vote: weights are each worker's agreement with the
    plain majority (crowd-kit's Wawa, without its scikit-learn dependency)."""
    majority = _vote_shares(frame, None).idxmax(axis=1)
    agrees = frame["label"].to_numpy() == majority.loc[frame["task"]].to_numpy()
    weights = pd.Series(agrees, index=frame.index).groupby(frame["worker"]).mean()
    return _vote_shares(frame, weights)


def _vote_shares(frame: pd.DataFrame, weights: pd.Series | None) -> pd.DataFrame:
    weight = 1.0 if weights is None else frame["worker"].map(weights).to_numpy()
    votes = frame.assign(weight=weight).pivot_table(
        index="task", columns="label", values="weight", aggfunc="sum", fill_value=0.0
    )
    votes = votes.reindex(sorted(votes.columns, key=str), axis=1)
    totals = votes.sum(axis=1).replace(0.0, 1.0)
    return votes.div(totals, axis=0)


def _posteriors(frame: pd.DataFrame, method: str, seed: int) -> pd.DataFrame:
    """Item x class posterior probabilities of ``method``."""
    from crowdkit.aggregation import GLAD, MACE, DawidSkene, MajorityVote, OneCoinDawidSkene

    if method == "wawa":
        return _wawa(frame)
    model = {
        "majority": lambda: MajorityVote(),
        "dawid_skene": lambda: DawidSkene(n_iter=N_ITER),
        "one_coin_dawid_skene": lambda: OneCoinDawidSkene(n_iter=N_ITER),
        "glad": lambda: GLAD(n_iter=N_ITER),
        "mace": lambda: MACE(n_restarts=MACE_RESTARTS, random_state=seed),
    }[method]()
    model.fit(frame)
    probas = model.probas_.fillna(0.0)
    return probas.reindex(sorted(probas.columns, key=str), axis=1)


def aggregate(labels: Labels, method: str, seed: int = 0) -> Aggregate:
    """Aggregate ``labels`` (item -> worker -> label) with ``method`` (a key of METHODS).

    Items and workers are returned under their own keys (they are compared as text inside)."""
    if method not in METHODS:
        raise AggregationError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    items = {str(i): i for i in labels}
    workers = {str(w): w for by_worker in labels.values() for w in by_worker}
    frame = _frame(labels)
    probas = _posteriors(frame, method, seed)
    classes = tuple(probas.columns)
    chosen = probas.idxmax(axis=1)
    confidence = probas.max(axis=1)
    counts = frame.groupby("task").size()
    out_labels = {items[t]: chosen[t] for t in probas.index}
    return Aggregate(
        method=method,
        labels=out_labels,
        confidence={items[t]: float(confidence[t]) for t in probas.index},
        n_labels={items[t]: int(counts[t]) for t in probas.index},
        workers=_worker_models(frame, probas, workers),
        classes=classes,
    )


def _worker_models(
    frame: pd.DataFrame, probas: pd.DataFrame, workers: Mapping[str, Hashable]
) -> dict[Hashable, WorkerModel]:
    """Skill and confusion of each worker under the item posteriors."""
    classes = list(probas.columns)
    position = {c: i for i, c in enumerate(classes)}
    rows = probas.loc[frame["task"]].to_numpy()
    right: dict[str, list[float]] = defaultdict(list)
    mass: dict[str, dict[Hashable, dict[Hashable, float]]] = defaultdict(
        lambda: {t: defaultdict(float) for t in classes}
    )
    for row, worker, given in zip(rows, frame["worker"], frame["label"], strict=True):
        right[worker].append(float(row[position[given]]) if given in position else 0.0)
        for true, p in zip(classes, row, strict=True):
            mass[worker][true][given] += float(p)
    out = {}
    for worker in sorted(right):
        confusion = {}
        for true in classes:
            total = sum(mass[worker][true].values())
            confusion[true] = {
                given: (mass[worker][true].get(given, 0.0) / total if total else 0.0)
                for given in classes
            }
        hits = right[worker]
        out[workers[worker]] = WorkerModel(sum(hits) / len(hits), len(hits), confusion)
    return out
