"""Derived values kept per topic: a page recomputes the topics a write touched, not all.

A collection's derived table that is a function of each topic's rows (a run's per-topic
metrics, a judge's per-topic counts) is cached with every topic's unit version
(``Topic.unit_version``, moved by ``crux_app.data_version.bump_topics``) under a key made of the
collection, its unit epoch (moved by writes that name no topic), the code's version and what
else the values depend on (``identity``). A request reads the versions first, then keeps the
cached rows of topics whose version is unchanged and computes only the others (new topics
too); topics that are gone are dropped. What combines the rows into a page's figures (means,
Kendall tau, intervals) runs per request on the merged table.

Ordering: the versions are read before the rows the values are computed from, as the data
version is (``crux_app.derived_cache``): a write that commits in between leaves new values
under an old version, which the next request recomputes, never the reverse. Two requests that
recompute at once each store a consistent table; the last one stays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, Self, TypeVar

import numpy as np
from django.conf import settings
from django.core.cache import cache

from crux_app.data_version import code_version
from crux_app.derived_cache import identity_digest
from crux_app.models import Collection, Topic
from crux_app.query_arrays import int_columns

# Above this share of stale topics one computation over the whole collection is cheaper than
# one restricted to a list of topics.
FULL_SHARE = 0.5
# Topics computed per part since the process started (tests count them; a counter is cheap).
COMPUTED: Counter[str] = Counter()


class TopicRows(Protocol):
    """A table of per-topic rows (one or several per topic)."""

    topic_ids: np.ndarray  # the topic of each row

    def keep(self, topic_ids: np.ndarray) -> Self:
        """The rows of these topics (sorted ids) only."""

    def merged(self, other: Self) -> Self:
        """These rows and ``other``'s (of other topics), ordered by topic id."""


T = TypeVar("T", bound=TopicRows)


@dataclass(frozen=True)
class TopicColumns:
    """The plainest ``TopicRows``: aligned columns, one value of each per row."""

    topic_ids: np.ndarray
    columns: dict[str, np.ndarray]

    def _take(self, idx: np.ndarray) -> TopicColumns:
        return TopicColumns(self.topic_ids[idx], {k: v[idx] for k, v in self.columns.items()})

    def keep(self, topic_ids: np.ndarray) -> TopicColumns:
        return self._take(np.flatnonzero(np.isin(self.topic_ids, topic_ids)))

    def merged(self, other: TopicColumns) -> TopicColumns:
        joined = TopicColumns(
            np.concatenate([self.topic_ids, other.topic_ids]),
            {k: np.concatenate([v, other.columns[k]]) for k, v in self.columns.items()},
        )
        return joined._take(np.argsort(joined.topic_ids, kind="stable"))


@dataclass(frozen=True)
class Units:
    """A collection's unit epoch and each topic's unit version, by ascending topic id."""

    epoch: int
    topic_ids: np.ndarray
    versions: np.ndarray


def current_units(collection_id: int) -> Units:
    """The units as stored now: one query over the topics' index (two without a topic)."""
    topics = Topic.objects.filter(collection_id=collection_id)
    rows = int_columns(topics, ["id", "unit_version", "collection__unit_epoch"])
    if len(rows):
        epoch = int(rows[0, 2])
    else:
        epoch = Collection.objects.values_list("unit_epoch", flat=True).get(pk=collection_id)
    rows = rows[np.argsort(rows[:, 0], kind="stable")]
    return Units(int(epoch), rows[:, 0], rows[:, 1])


def unchanged(units: Units, ids: np.ndarray, versions: np.ndarray) -> np.ndarray:
    """(T,) bool over ``units.topic_ids``: cached (``ids``, sorted) at the same version."""
    if not len(ids):
        return np.zeros(len(units.topic_ids), bool)
    at = np.minimum(np.searchsorted(ids, units.topic_ids), len(ids) - 1)
    return (ids[at] == units.topic_ids) & (versions[at] == units.versions)


def unit_key(collection_id: int, epoch: int, part: str, identity: object) -> str:
    digest = identity_digest((code_version(), identity))
    return f"units:{collection_id}:{epoch}:{part}:{digest}"


def per_topic(
    collection_id: int,
    part: str,
    identity: object,
    compute: Callable[[np.ndarray | None], T],
) -> T:
    """The table ``part`` of every topic of the collection: cached rows of unchanged topics,
    ``compute(topic_ids)`` for the others (``compute(None)``: every topic at once)."""
    units = current_units(collection_id)
    key = unit_key(collection_id, units.epoch, part, identity)
    entry = cache.get(key)
    table: T
    if entry is None:
        table = compute(None)
        COMPUTED[part] += len(units.topic_ids)
    else:
        ids, versions, cached = entry
        same = unchanged(units, ids, versions)
        if same.all() and len(ids) == len(units.topic_ids):
            return cached
        stale = units.topic_ids[~same]
        if len(stale) > FULL_SHARE * len(units.topic_ids):
            table = compute(None)
            COMPUTED[part] += len(units.topic_ids)
        else:
            table = cached.keep(units.topic_ids[same])
            if len(stale):
                table = table.merged(compute(stale))
            COMPUTED[part] += len(stale)
    cache.set(key, (units.topic_ids, units.versions, table), settings.DERIVED_CACHE_SECONDS)
    return table
