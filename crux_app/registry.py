"""One registry type for everything methods plug into the shared pages.

Job kinds, page links, topic summaries, judge kinds, leaderboard columns, agreement sources and
API endpoints are each held by a ``Registry``: entries are added by key (an app's declaration
never replaces another's: a key declared twice fails at start, naming both apps), and read
in the order their declared dependencies give (``graphlib``'s topological order, declaration
order breaking ties), never by magic numbers.

A registry names the entry type it holds; ``Registry.of(entry)`` finds the registry of an entry
by that type. ``crux_app.method_config.MethodConfig`` relies on it to register what a method
declares without importing the higher floors that define some of the entry types (the
leaderboard's columns, the agreement sources): the module that defines an entry type creates its
registry, and a method cannot build such an entry without importing that module first.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping
from graphlib import TopologicalSorter
from operator import attrgetter
from typing import Any, ClassVar, Generic, TypeVar

T = TypeVar("T")


class DuplicateEntry(ValueError):
    """Two apps declare an entry of the same key (a job kind, a column, a task type)."""


def _no_needs(entry: Any) -> tuple[str, ...]:
    return ()


class Registry(Mapping[str, T], Generic[T]):
    """Entries of one kind by key (a read-only ``Mapping`` to its readers).

    ``key`` reads an entry's key; ``needs`` the keys of the entries that come before it and
    ``precedes`` those that come after it (keys not registered are ignored: a method may be left
    out of ``INSTALLED_APPS``); ``rank`` orders the entries that are ready together before
    declaration order does (a declared word about the entry itself, e.g. a slow demo job);
    ``prepare``
    checks or converts an entry as it is registered (it raises ``ValueError`` to refuse one).
    ``entry_types``: the types ``Registry.of`` maps to this registry (the first is what it
    holds; the others are converted by ``prepare``).
    """

    _BY_TYPE: ClassVar[dict[type, Registry[Any]]] = {}

    def __init__(
        self,
        what: str,
        entry_types: tuple[type, ...] = (),
        key: Callable[[T], str] = attrgetter("key"),
        needs: Callable[[T], Iterable[str]] = _no_needs,
        precedes: Callable[[T], Iterable[str]] = _no_needs,
        prepare: Callable[[Any], T] | None = None,
        rank: Callable[[T], Any] | None = None,
    ) -> None:
        self.what = what
        self._rank = rank
        self._key = key
        self._needs = needs
        self._precedes = precedes
        self._prepare = prepare
        self._entries: dict[str, T] = {}
        self._owners: dict[str, str] = {}
        # Counts changes: a cached table names the registry state it was computed with.
        self.generation = 0
        for entry_type in entry_types:
            Registry._BY_TYPE[entry_type] = self

    @classmethod
    def of(cls, entry: object) -> Registry[Any]:
        """The registry that holds entries of ``entry``'s type."""
        for entry_type in type(entry).__mro__:
            if entry_type in cls._BY_TYPE:
                return cls._BY_TYPE[entry_type]
        raise LookupError(f"no registry holds {type(entry).__name__} entries")

    def register(self, entry: Any, owner: str | None = None) -> T:
        """Add an entry, or replace the one with its key (which keeps its place in the
        declaration order). ``owner``: the app declaring it; an app's declaration never
        replaces an entry: a key declared twice fails at start, naming both apps."""
        prepared: T = self._prepare(entry) if self._prepare is not None else entry
        key = self._key(prepared)
        if owner is not None and key in self._entries:
            first = self._owners.get(key) or "code outside any declaration"
            raise DuplicateEntry(
                f"{self.what} {key!r} is declared twice: by {first} and by {owner}"
            )
        self._entries[key] = prepared
        if owner is not None:
            self._owners[key] = owner
        self.generation += 1
        return prepared

    def owner(self, key: str) -> str | None:
        """The app that declared the entry (None: registered by code)."""
        return self._owners.get(key)

    def unregister(self, key: str) -> None:
        self._entries.pop(key, None)
        self._owners.pop(key, None)
        self.generation += 1

    def __getitem__(self, key: str) -> T:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def ordered(self) -> list[T]:
        """Every entry after the entries it needs and before those it precedes; otherwise by
        ``rank``, then in declaration order (raises
        ``graphlib.CycleError`` when the needs run in a circle)."""
        position = {key: index for index, key in enumerate(self._entries)}
        sorter: TopologicalSorter[str] = TopologicalSorter()
        for key, entry in self._entries.items():
            sorter.add(key, *(need for need in self._needs(entry) if need in position))
            for later in self._precedes(entry):
                if later in position:
                    sorter.add(later, key)
        sorter.prepare()
        ready: list[tuple[Any, int, str]] = []
        keys: list[str] = []
        while sorter.is_active():
            for key in sorter.get_ready():
                rank = self._rank(self._entries[key]) if self._rank is not None else 0
                heapq.heappush(ready, (rank, position[key], key))
            *_, key = heapq.heappop(ready)
            keys.append(key)
            sorter.done(key)
        return [self._entries[key] for key in keys]
