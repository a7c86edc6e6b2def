"""Each collection's data version: a token that changes whenever rows its figures are computed
from change, so that pages may cache what they derive from those rows under it.

A cache keyed by (collection, data version, parameters) is never stale, only unused: a write
gives the collection a new token, and the next request misses and recomputes. Writes through
``bulk_create``, ``update()``, COPY and raw SQL send no signals, so every write path calls
``bump`` itself; the central places are

- ``crux_app.dataio.collection_store.CollectionStore`` (every importer opens one inside its
  transaction),
- ``crux_app.jobs.runner.run_batches`` (every method job's stored results, after each batch),
- the signals connected here (any ORM ``save()`` of the shared rows, the deletion of a topic,
  run or output, and of a judge), and ``DataVersionAdmin`` (deletions in the admin, which are
  bulk deletes without signals),
- and the bulk deletions of other code (an annotator's undo), which call ``bump_rows``.

Ordering: the bump must commit with the write or after it, never before. Inside the writing
transaction any order is right (both become visible at once). In autocommit it must come after
the write: a bump before it would let a request cache the old rows under the new token.

The token is random (a UUID), not a counter, so that two databases never produce the same key
in a shared cache (one test database and the next, or a developer's and the tests'). Cache keys
also carry ``code_version``, so a code change is never served numbers its predecessor computed.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings
from django.contrib import admin
from django.db import connection, models, transaction
from django.db.models.signals import post_delete, post_save, pre_delete

from crux_app.models import (
    Collection,
    CoverageLabel,
    GeneratedOutput,
    Judge,
    Judgment,
    OutputContext,
    Passage,
    PassageQrel,
    Run,
    RunEntry,
    SubQuestion,
    SubtopicQrel,
    Topic,
)

# How each shared row reaches its collection (a judge: through its judgments).
COLLECTION_PATHS: dict[type[models.Model], str] = {
    Topic: "collection_id",
    Passage: "collection_id",
    Run: "collection_id",
    GeneratedOutput: "collection_id",
    SubQuestion: "topic__collection_id",
    Judgment: "topic__collection_id",
    PassageQrel: "topic__collection_id",
    SubtopicQrel: "topic__collection_id",
    RunEntry: "run__collection_id",
    OutputContext: "output__collection_id",
    CoverageLabel: "output__collection_id",
    Judge: "judgments__topic__collection_id",
}
# Deleting one of these sends signals without loading many rows; the others are deleted in
# bulk (a run's 100k entries, a collection's millions of judgments), and a receiver on them
# would make Django load every row to send it: their deletions bump through ``bump_rows``.
DELETE_SIGNALLED = (Topic, Run, GeneratedOutput)
# Where the code that computes derived tables lives (``code_version``).
SOURCE_PACKAGES = ("crux_app", "annotation", "evaluation")


class NotInTransaction(RuntimeError):
    """A bump that precedes its writes needs the transaction that makes them atomic."""


def bump(*collection_ids: int | None) -> None:
    """Give these collections a new data version (None entries are skipped)."""
    ids = {pk for pk in collection_ids if pk is not None}
    if ids:
        Collection.objects.filter(pk__in=ids).update(data_version=uuid.uuid4())


def bump_before_writes(collection_id: int) -> None:
    """Bump at the start of a transaction that will write the collection's rows (an
    importer's). Outside a transaction the bump would commit before the writes."""
    if not connection.in_atomic_block:
        raise NotInTransaction(
            "bump_before_writes must run inside the transaction that writes the collection"
        )
    bump(collection_id)


def bump_rows(rows: models.QuerySet) -> None:
    """Bump the collections that ``rows`` (a queryset of a shared model) belong to; call it
    before deleting them (the rows must still exist) inside the deleting transaction."""
    path = COLLECTION_PATHS[rows.model]
    collections = rows.order_by().values(path)
    Collection.objects.filter(pk__in=collections).update(data_version=uuid.uuid4())


def bump_topics(topic_ids: Iterable[int]) -> None:
    """Bump the collections of these topics."""
    topics = Topic.objects.filter(pk__in=list(topic_ids)).values("collection_id")
    Collection.objects.filter(pk__in=topics).update(data_version=uuid.uuid4())


@functools.cache
def code_version() -> str:
    """A fingerprint of the project's Python sources (names, sizes, modification times), for
    the keys of cached derived tables: numbers computed by older code (a fixed metric, a
    changed table) are never read after a deploy or a development server's reload, and the
    processes of one deployment share their entries."""
    root = Path(settings.BASE_DIR)
    digest = hashlib.sha256()
    for package in SOURCE_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            stat = path.stat()
            digest.update(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


def current(collection_id: int) -> uuid.UUID:
    """The collection's data version as stored now."""
    return Collection.objects.values_list("data_version", flat=True).get(pk=collection_id)


def _saved(sender: type[models.Model], instance: models.Model, **kwargs: object) -> None:
    if COLLECTION_PATHS[sender] == "collection_id":
        bump(instance.collection_id)
    else:
        bump_rows(sender.objects.filter(pk=instance.pk))


def _collection_deleted(origin: object) -> bool:
    """Whether a cascade comes from deleting collections (whose versions no longer matter)."""
    if isinstance(origin, Collection):
        return True
    return isinstance(origin, models.QuerySet) and origin.model is Collection


def _deleted(sender: type[models.Model], instance: models.Model, **kwargs: object) -> None:
    if not _collection_deleted(kwargs.get("origin")):
        bump(instance.collection_id)


def _judge_deleting(sender: type[models.Model], instance: Judge, **kwargs: object) -> None:
    # Before the cascade removes the judgments that say which collections it judged.
    if not _collection_deleted(kwargs.get("origin")):
        bump_rows(Judge.objects.filter(pk=instance.pk))


def connect_signals() -> None:
    """Bump on every ORM save of a shared row and on deletions that send signals (called from
    ``CruxAppConfig.ready``)."""
    for model in COLLECTION_PATHS:
        post_save.connect(_saved, sender=model, dispatch_uid=f"data_version_saved_{model.__name__}")
    for model in DELETE_SIGNALLED:
        post_delete.connect(
            _deleted, sender=model, dispatch_uid=f"data_version_deleted_{model.__name__}"
        )
    pre_delete.connect(_judge_deleting, sender=Judge, dispatch_uid="data_version_judge_deleting")


class DataVersionAdmin(admin.ModelAdmin):
    """Admin deletions of shared rows bump their collections (they delete in bulk, without
    the signals that would; saves are bumped by the post_save signal)."""

    def delete_model(self, request, obj) -> None:
        with transaction.atomic():
            bump_rows(type(obj).objects.filter(pk=obj.pk))
            super().delete_model(request, obj)

    def delete_queryset(self, request, queryset) -> None:
        with transaction.atomic():
            bump_rows(queryset)
            super().delete_queryset(request, queryset)
