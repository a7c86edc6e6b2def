"""The disagreement queue: which items a review campaign holds, and in what order.

No queries: the loader (``annotation/labels/collection.py``) turns stored labels into ``{item
key: {judge: label}}`` and this module picks the items, by the review campaign model's choices
(``KINDS``, ``SAMPLINGS``). An item is in the queue when at least two of the chosen judges
labelled it and their labels are not all equal; the kind of disagreement narrows which pairs
count (people among themselves, a person against a machine, two machines). Sampling is seeded
so a campaign can be made again from its record, and every item keeps its inclusion
probability so estimates over a sample can be weighted back.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from annotation.labels.item_ref import Label
from annotation.models.review import (
    ALL,
    ANNOTATOR_MACHINE,
    ANNOTATORS,
    ANY,
    LARGEST_GAP,
    MACHINES,
    RANDOM,
    SAMPLINGS,
    STRATIFIED,
)


@dataclass(frozen=True)
class QueueItem:
    key: str
    labels: dict[str, Label]
    topic: str = ""
    gap: float = 0.0
    # P(item is in the sample | it is a disagreement); 1 when every item is taken.
    inclusion: float = 1.0
    ref: Hashable = field(default=None, compare=False)


def label_gap(labels: Iterable[Label]) -> float:
    """How far apart the labels are: max - min for numbers, distinct labels - 1 for
    categories (A vs B is a gap of 1, A vs B vs C of 2)."""
    values = list(labels)
    if not values:
        return 0.0
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return float(max(values) - min(values))
    return float(len(set(values)) - 1)


def disagrees(labels: Mapping[str, Label], kind: str, machines: frozenset[str]) -> bool:
    """Whether the labels hold a disagreement of ``kind`` (``machines``: the machine judges)."""
    people = {j: v for j, v in labels.items() if j not in machines}
    bots = {j: v for j, v in labels.items() if j in machines}
    if kind == ANNOTATORS:
        return len(people) >= 2 and len(set(people.values())) > 1
    if kind == MACHINES:
        return len(bots) >= 2 and len(set(bots.values())) > 1
    if kind == ANNOTATOR_MACHINE:
        return any(p != b for p in people.values() for b in bots.values())
    return len(labels) >= 2 and len(set(labels.values())) > 1


def disagreement_queue(
    labels_by_item: Mapping[str, Mapping[str, Label]],
    *,
    judges: Iterable[str] | None = None,
    kind: str = ANY,
    machines: Iterable[str] = (),
    topics: Mapping[str, str] | None = None,
    topic_filter: Iterable[str] | None = None,
    min_gap: float = 0.0,
) -> list[QueueItem]:
    """Every item whose chosen judges disagree (in key order).

    ``judges`` limits the labels to those judges (None: every judge present); ``topics`` maps
    an item key to its topic, ``topic_filter`` keeps those topics only; ``min_gap`` drops
    items whose labels are closer than it.
    """
    chosen = None if judges is None else set(judges)
    machine_set = frozenset(machines)
    wanted_topics = None if topic_filter is None else set(topic_filter)
    topics = topics or {}
    out = []
    for key in sorted(labels_by_item):
        labels = {
            j: v
            for j, v in labels_by_item[key].items()
            if v is not None and (chosen is None or j in chosen)
        }
        topic = topics.get(key, "")
        if wanted_topics is not None and topic not in wanted_topics:
            continue
        if not disagrees(labels, kind, machine_set):
            continue
        gap = label_gap(labels.values())
        if gap < min_gap:
            continue
        out.append(QueueItem(key, dict(sorted(labels.items())), topic, gap))
    return out


def sample_queue(
    items: list[QueueItem], sampling: str = ALL, n: int | None = None, seed: int = 0
) -> list[QueueItem]:
    """``n`` of the items by ``sampling`` (all of them when ``n`` is None or at least their
    number), each with its inclusion probability.

    Random: a simple random sample, inclusion n/N. Stratified: the n places shared as evenly
    as possible between topics (a topic with fewer items gives its spare places to the
    others), inclusion n_h/N_h per topic. Largest gaps first: the n largest gaps (ties by
    key); not a probability sample, so its inclusion is 1 for the items taken.
    """
    if n is None or n >= len(items) or sampling == ALL:
        return [_with_inclusion(i, 1.0) for i in items]
    if n <= 0:
        return []
    rng = random.Random(seed)
    if sampling == RANDOM:
        picked = rng.sample(items, n)
        share = n / len(items)
        return sorted((_with_inclusion(i, share) for i in picked), key=lambda i: i.key)
    if sampling == LARGEST_GAP:
        ranked = sorted(items, key=lambda i: (-i.gap, i.key))[:n]
        return [_with_inclusion(i, 1.0) for i in ranked]
    if sampling == STRATIFIED:
        return _stratified(items, n, rng)
    raise ValueError(f"unknown sampling {sampling!r}; choose from {', '.join(SAMPLINGS)}")


def stratum_sizes(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """Places per stratum, as equal as the strata allow: a stratum smaller than its share
    gives all its items and its spare places go to the others; what does not divide evenly
    goes to the first strata by name."""
    places = dict.fromkeys(sizes, 0)
    left = min(n, sum(sizes.values()))
    remaining = sorted(sizes, key=lambda s: (sizes[s], s))
    while remaining:
        share = left // len(remaining)
        smallest = remaining[0]
        if sizes[smallest] <= share:
            places[smallest] = sizes[smallest]
            left -= sizes[smallest]
            remaining.pop(0)
            continue
        extra = left - share * len(remaining)
        for i, s in enumerate(sorted(remaining)):
            places[s] = share + (1 if i < extra else 0)
        break
    return places


def _stratified(items: list[QueueItem], n: int, rng: random.Random) -> list[QueueItem]:
    by_topic: dict[str, list[QueueItem]] = defaultdict(list)
    for item in items:
        by_topic[item.topic].append(item)
    places = stratum_sizes({t: len(v) for t, v in by_topic.items()}, n)
    picked = []
    for topic in sorted(by_topic):
        members = by_topic[topic]
        share = places[topic] / len(members)
        picked += [_with_inclusion(i, share) for i in rng.sample(members, places[topic])]
    return sorted(picked, key=lambda i: i.key)


def _with_inclusion(item: QueueItem, p: float) -> QueueItem:
    return QueueItem(item.key, item.labels, item.topic, item.gap, p, item.ref)


def option_order(n_options: int, seed: int, key: str) -> list[int]:
    """A per-item shuffled order of the candidate labels (same seed and key: same order), so
    option A is not always the first judge's label."""
    order = list(range(n_options))
    random.Random(f"{seed}:{key}").shuffle(order)
    return order
