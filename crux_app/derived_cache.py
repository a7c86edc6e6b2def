"""Derived tables cached under a collection's data version: the one "get or compute" that
every page's cache goes through (the leaderboard's boards, the agreement report, the coverage
matrix's rows, the collection page's counts and the input choices).

A key names the collection's data version (``crux_app.data_version``: a new token whenever the
rows a figure is computed from change) and whatever else the value depends on; a write gives
the collection a new token, so an entry is never stale, only unused, and simply expires after
``settings.DERIVED_CACHE_SECONDS``.

Callers read the collection (and so its version) before what they cache: a write that commits
in between leaves the new figures under the old version, never the reverse.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.cache import cache

from crux_app.data_version import code_version, current

T = TypeVar("T")


def get_or_compute(key: str, compute: Callable[[], T]) -> T:
    """The value cached under ``key``, or ``compute()``'s, cached (an exception propagates and
    nothing is cached)."""
    found = cache.get(key)
    if found is None:
        found = compute()
        cache.set(key, found, settings.DERIVED_CACHE_SECONDS)
    return found


def identity_digest(identity: object) -> str:
    """A short digest of everything besides the data version a cached value depends on
    (options, registries, settings, the code's version), by its ``repr``."""
    return hashlib.sha256(repr(identity).encode()).hexdigest()[:32]


def derived_key(collection_id: int, version_hex: str, part: str) -> str:
    """The key of the collection's derived table ``part`` at data version ``version_hex`` and
    the code's version."""
    return f"derived:{collection_id}:{version_hex}:{code_version()}:{part}"


def derived(collection_id: int, version_hex: str, part: str, compute: Callable[[], T]) -> T:
    """``compute()`` cached under the collection's data version as the caller read it."""
    return get_or_compute(derived_key(collection_id, version_hex, part), compute)


def cached(collection_id: int, part: str, compute: Callable[[], T]) -> T:
    """``compute()``'s value for the collection's rows as they are now: cached under its
    current data version (read afresh, so a long-held instance is never trusted) and the
    code version."""
    return derived(collection_id, current(collection_id).hex, part, compute)
