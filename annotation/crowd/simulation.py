"""A simulated crowd for tests and benches of the aggregation models (no Django): items with a
known true label, and careful, noisy, spamming and always-yes workers labelling them."""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

# kind -> accuracy (None: the worker ignores the item)
CAREFUL, NOISY, SPAMMER, ALWAYS_YES = "careful", "noisy", "spammer", "always_yes"
ACCURACY = {CAREFUL: 0.92, NOISY: 0.7}


@dataclass(frozen=True)
class SimulatedWorker:
    name: str
    kind: str

    def label(self, truth: Hashable, classes: Sequence[Hashable], rng: random.Random) -> Hashable:
        """This worker's label of an item whose true label is ``truth``."""
        if self.kind == ALWAYS_YES:
            return classes[-1]
        if self.kind == SPAMMER:
            return rng.choice(list(classes))
        if rng.random() < ACCURACY[self.kind]:
            return truth
        return rng.choice([c for c in classes if c != truth])


@dataclass(frozen=True)
class Crowd:
    truth: dict[str, Hashable]  # item -> true label
    workers: tuple[SimulatedWorker, ...]
    classes: tuple[Hashable, ...]
    prior: tuple[float, ...]  # P(true label) per class
    seed: int

    def worker_named(self, name: str) -> SimulatedWorker:
        return next(w for w in self.workers if w.name == name)

    def label(
        self, item: str, worker: SimulatedWorker, rng: random.Random | None = None
    ) -> Hashable:
        """One label of ``item`` by ``worker`` (drawn from ``rng``, or from the item and worker
        when none is given, so the same pair always answers the same)."""
        rng = rng or random.Random(f"{self.seed}/{item}/{worker.name}")
        return worker.label(self.truth[item], self.classes, rng)


def make_crowd(
    n_items: int = 200,
    mix: Sequence[tuple[str, int]] = ((CAREFUL, 2), (NOISY, 3), (SPAMMER, 3), (ALWAYS_YES, 2)),
    classes: Sequence[Hashable] = (0, 1),
    prior: Sequence[float] = (0.7, 0.3),
    seed: int = 0,
) -> Crowd:
    """Items with true labels drawn from ``prior``, and workers of each kind (``w01``...)."""
    rng = random.Random(seed)
    truth = {f"i{n:04d}": rng.choices(list(classes), weights=prior)[0] for n in range(n_items)}
    workers, n = [], 0
    for kind, count in mix:
        for _ in range(count):
            n += 1
            workers.append(SimulatedWorker(f"w{n:02d}", kind))
    return Crowd(truth, tuple(workers), tuple(classes), tuple(prior), seed)


def fixed_overlap_labels(crowd: Crowd, overlap: int) -> dict[str, dict[str, Hashable]]:
    """Every item labelled by ``overlap`` workers drawn at random: item -> worker -> label."""
    rng = random.Random(crowd.seed + 1)
    out: dict[str, dict[str, Hashable]] = {}
    for item in crowd.truth:
        chosen = rng.sample(list(crowd.workers), overlap)
        out[item] = {w.name: crowd.label(item, w) for w in chosen}
    return out


def accuracy(labels: dict[Hashable, Hashable], truth: dict[str, Hashable]) -> float:
    """Share of items whose label is the true one."""
    return sum(labels.get(item) == true for item, true in truth.items()) / len(truth)


def until_confident_labels(
    crowd: Crowd, overlap: int, target: float, cap: int
) -> dict[str, dict[str, Hashable]]:
    """The until-confident queue on the crowd: ``overlap`` labels per item, then one more at a
    time while the majority label's share is under ``target``, up to ``cap`` labels."""
    rng = random.Random(crowd.seed + 1)
    out: dict[str, dict[str, Hashable]] = {}
    for item in crowd.truth:
        order = rng.sample(list(crowd.workers), len(crowd.workers))
        labels = {w.name: crowd.label(item, w) for w in order[:overlap]}
        while len(labels) < min(cap, len(order)):
            top = max(list(labels.values()).count(v) for v in labels.values())
            if top / len(labels) >= target:
                break
            worker = order[len(labels)]
            labels[worker.name] = crowd.label(item, worker)
        out[item] = labels
    return out


def n_labels(labels: dict[str, dict[str, Hashable]]) -> int:
    return sum(len(by_worker) for by_worker in labels.values())
