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

Every bump also stamps ``Collection.data_changed_at``: the time of the data a page shows ("as
of 12:04:31" while a job or campaign still writes, ``crux_app.freshness``).

The token is random (a UUID), not a counter, so that two databases never produce the same key
in a shared cache (one test database and the next, or a developer's and the tests'). Cache keys
also carry ``code_version``, so a code change is never served numbers its predecessor computed.

Units: besides the collection's token, every topic has a unit version (``Topic.unit_version``)
and the collection a unit epoch (``Collection.unit_epoch``), so that a page can keep derived
values per topic and recompute only the topics a write touched (``crux_app.unit_cache``). A write
names what it touched: ``bump_topics`` (and ``bump_rows`` of rows that belong to a topic) moves
those topics' versions; ``bump`` and ``bump_before_writes`` name no topic, so they move the
epoch, which invalidates every topic of the collection at once (correct, but the next page
recomputes everything: imports, a run's or a passage's change, a judge's). Every call moves the
collection's data version as before. The job runner records what each batch's writes named
(``recording``) and bumps exactly that after the batch, or everything when a write named nothing.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.contrib import admin
from django.db import connection, models, transaction
from django.db.models.signals import post_delete, post_save, pre_delete
from django.utils import timezone

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
from crux_app.models.collection import new_unit_token

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
# How each shared row reaches its topic, for the rows that belong to one (the others name no
# topic: their writes move the whole collection's epoch).
TOPIC_PATHS: dict[type[models.Model], str] = {
    Topic: "pk",
    SubQuestion: "topic_id",
    Judgment: "topic_id",
    PassageQrel: "topic_id",
    SubtopicQrel: "topic_id",
    RunEntry: "topic_id",
    GeneratedOutput: "topic_id",
    OutputContext: "output__topic_id",
    CoverageLabel: "output__topic_id",
}
# Deleting one of these sends signals without loading many rows; the others are deleted in
# bulk (a run's 100k entries, a collection's millions of judgments), and a receiver on them
# would make Django load every row to send it: their deletions bump through ``bump_rows``.
DELETE_SIGNALLED = (Topic, Run, GeneratedOutput)
# Where the code that computes derived tables lives (``code_version``).
SOURCE_PACKAGES = ("crux_app", "annotation", "evaluation")


class NotInTransaction(RuntimeError):
    """A bump that precedes its writes needs the transaction that makes them atomic."""


@dataclass
class Touched:
    """What the bumps inside ``recording`` named: topics, and collections bumped whole."""

    topics: set[int] = field(default_factory=set)
    everything: set[int] = field(default_factory=set)


_recording: ContextVar[Touched | None] = ContextVar("data_version_recording", default=None)


@contextmanager
def recording() -> Iterator[Touched]:
    """Collect what every bump inside names (the job runner's batches)."""
    touched = Touched()
    token = _recording.set(touched)
    try:
        yield touched
    finally:
        _recording.reset(token)


def bump(*collection_ids: int | None) -> None:
    """Give these collections a new data version and a new unit epoch (None entries are
    skipped): for a write that cannot say which topics it touched, so every topic's derived
    values are recomputed (correct, but slow on a large collection)."""
    ids = {pk for pk in collection_ids if pk is not None}
    if ids:
        Collection.objects.filter(pk__in=ids).update(
            data_version=uuid.uuid4(), unit_epoch=new_unit_token(), data_changed_at=timezone.now()
        )
        touched = _recording.get()
        if touched is not None:
            touched.everything |= ids


def bump_version_only(*collection_ids: int | None) -> None:
    """A new data version, no unit moved: for a write whose topics' units are moved by their
    own bumps (or whose topics are gone: a topic's deletion)."""
    ids = {pk for pk in collection_ids if pk is not None}
    if ids:
        Collection.objects.filter(pk__in=ids).update(
            data_version=uuid.uuid4(), data_changed_at=timezone.now()
        )


def bump_before_writes(collection_id: int) -> None:
    """Bump at the start of a transaction that will write the collection's rows (an
    importer's). Outside a transaction the bump would commit before the writes."""
    if not connection.in_atomic_block:
        raise NotInTransaction(
            "bump_before_writes must run inside the transaction that writes the collection"
        )
    bump(collection_id)


def bump_rows(rows: models.QuerySet) -> None:
    """Bump what ``rows`` (a queryset of a shared model) belong to: their topics where the
    model's rows belong to one, else their collections whole; call it before deleting them
    (the rows must still exist) inside the deleting transaction."""
    topic_path = TOPIC_PATHS.get(rows.model)
    if topic_path is not None:
        bump_topics(set(rows.order_by().values_list(topic_path, flat=True).distinct()) - {None})
        return
    path = COLLECTION_PATHS[rows.model]
    bump(*rows.order_by().values_list(path, flat=True).distinct())


def bump_topics(topic_ids: Iterable[int]) -> None:
    """Give these topics new unit versions and their collections new data versions: a write
    that names the topics it touched (the bulk writes pass the set of their rows' topics)."""
    ids = sorted(set(topic_ids))
    if not ids:
        return
    # The collection's row first, as every other bump takes it: writers of one collection
    # queue there, and never hold a topic's row while waiting for it (no deadlock).
    if connection.vendor == "postgresql":
        _bump_topics_in_one_statement(ids)
    else:  # the SQLite demo
        collections = Topic.objects.filter(pk__in=ids).values("collection_id")
        Collection.objects.filter(pk__in=collections).update(
            data_version=uuid.uuid4(), data_changed_at=timezone.now()
        )
        Topic.objects.filter(pk__in=ids).update(unit_version=new_unit_token())
    touched = _recording.get()
    if touched is not None:
        touched.topics.update(ids)


def _bump_topics_in_one_statement(ids: list[int]) -> None:
    """Both updates in one round trip (an annotator's submit counts its statements): the
    topics' update reads what the collections' update returns, which so runs (and locks)
    first."""
    collection = connection.ops.quote_name(Collection._meta.db_table)
    topic = connection.ops.quote_name(Topic._meta.db_table)
    sql = (
        f"WITH moved AS (UPDATE {collection} SET data_version = %s, data_changed_at = %s "
        f"WHERE id IN (SELECT collection_id FROM {topic} WHERE id = ANY(%s)) RETURNING id) "
        f"UPDATE {topic} SET unit_version = %s "
        f"WHERE id = ANY(%s) AND collection_id IN (SELECT id FROM moved)"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [uuid.uuid4(), timezone.now(), ids, new_unit_token(), ids])


def bump_recorded(collection_id: int, touched: Touched) -> None:
    """After a job's batch: bump what its writes named again (they bumped in their own
    transactions; this is the runner's net for a worker killed in between), or the whole
    collection when they named nothing (a write through a path that does not bump itself)."""
    if not touched.topics or collection_id in touched.everything:
        bump(collection_id)
        return
    bump_topics(touched.topics)
    bump_version_only(collection_id)


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
    topic_path = TOPIC_PATHS.get(sender)
    if topic_path in ("pk", "topic_id"):
        bump_topics([getattr(instance, topic_path)])  # at hand: no query
    elif topic_path is not None or COLLECTION_PATHS[sender] != "collection_id":
        bump_rows(sender.objects.filter(pk=instance.pk))
    else:
        bump(instance.collection_id)


def _collection_deleted(origin: object) -> bool:
    """Whether a cascade comes from deleting collections (whose versions no longer matter)."""
    if isinstance(origin, Collection):
        return True
    return isinstance(origin, models.QuerySet) and origin.model is Collection


def _deleted(sender: type[models.Model], instance: models.Model, **kwargs: object) -> None:
    if _collection_deleted(kwargs.get("origin")):
        return
    if sender is Topic:
        bump_version_only(instance.collection_id)  # its units leave with it; no other moves
    elif sender is GeneratedOutput:
        bump_topics([instance.topic_id])
        bump_version_only(instance.collection_id)  # should its topic be gone already
    else:
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
