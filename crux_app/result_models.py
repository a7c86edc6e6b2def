"""The base of every method's stored results: writing one moves its collection's data version.

Pages cache what they derive from a method's results under the collection's data version
(``crux_app.derived_cache``). A writer that forgot to ``bump`` would leave a page showing
figures from before its write, so the write itself bumps: ``MethodResult.save`` and
``delete``, and the bulk paths of its manager (``bulk_create``, ``bulk_update``, ``update``,
``delete``) that send no signals. A method's result model subclasses ``MethodResult`` and
names how a row reaches its collection (``collection_path``); a custom queryset subclasses
``ResultQuerySet``.

Ordering (``crux_app.data_version``): a save or a bulk insert bumps after its write; a deletion
or an update bumps inside one transaction with it, reading the rows' collections before the
rows are gone or changed. Raw SQL and COPY writes still bump themselves (the job runner bumps
after every batch too).

A model whose rows belong to a topic (``topic_path``, derived from ``collection_path`` when it
goes through ``topic``) names the topics a write touched (``bump_topics``), so pages recompute
only those topics' values; any other model's writes move its collections whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from django.db import models, transaction

from crux_app.data_version import bump, bump_topics


def collections_of(model: type[models.Model], rows: Iterable[models.Model]) -> set[int]:
    """The collections of unsaved or saved instances of ``model``, read from the foreign key
    its ``collection_path`` starts with (one query where the path goes further)."""
    path: str = model.collection_path  # type: ignore[attr-defined]
    first, _, rest = path.partition("__")
    field = model._meta.get_field(first.removesuffix("_id"))
    rows = [row for row in rows if getattr(row, field.attname) is not None]
    ids = {getattr(row, field.attname) for row in rows}
    if not rest or not ids:
        return ids
    if "__" not in rest and all(field.is_cached(row) for row in rows):
        # The related rows are at hand (a save with ``topic=topic``): no query.
        return {getattr(field.get_cached_value(row), rest) for row in rows} - {None}
    related = field.related_model._base_manager.filter(pk__in=ids)
    return set(related.values_list(rest, flat=True))


def topic_path_of(model: type[models.Model]) -> str | None:
    """How a row of ``model`` reaches its topic: its ``topic_path``, else its collection path's
    part up to ``topic`` ("result__topic__collection_id" -> "result__topic_id"), else None."""
    declared = getattr(model, "topic_path", None)
    if declared is not None:
        return declared
    path: str = model.collection_path  # type: ignore[attr-defined]
    if path == "topic__collection_id" or path.endswith("__topic__collection_id"):
        return path.removesuffix("__collection_id") + "_id"
    return None


def topics_of(model: type[models.Model], rows: Iterable[models.Model]) -> set[int]:
    """The topics of instances of a model with a ``topic_path`` (a query where it goes
    through another row)."""
    path = topic_path_of(model)
    first, _, rest = path.partition("__")  # type: ignore[union-attr]
    field = model._meta.get_field(first.removesuffix("_id"))
    ids = {getattr(row, field.attname) for row in rows} - {None}
    if not rest or not ids:
        return ids
    related = field.related_model._base_manager.filter(pk__in=ids)
    return set(related.values_list(rest, flat=True)) - {None}


def bump_instances(model: type[models.Model], rows: Iterable[models.Model]) -> None:
    """Bump what these instances touched: their topics, or their collections whole."""
    rows = list(rows)
    if topic_path_of(model) is not None:
        bump_topics(topics_of(model, rows))
    else:
        bump(*collections_of(model, rows))


class ResultQuerySet(models.QuerySet):
    """Bulk writes that bump the topics (or collections) they touch."""

    def _bump_rows(self) -> None:
        topic_path = topic_path_of(self.model)
        if topic_path is not None:
            bump_topics(self.order_by().values_list(topic_path, flat=True).distinct())
            return
        path = self.model.collection_path  # type: ignore[attr-defined]
        bump(*self.order_by().values_list(path, flat=True).distinct())

    def bulk_create(self, objs: Iterable[models.Model], *args: Any, **kwargs: Any) -> list:
        created = super().bulk_create(objs, *args, **kwargs)
        bump_instances(self.model, created)
        return created

    def bulk_update(self, objs: Iterable[models.Model], *args: Any, **kwargs: Any) -> int:
        objs = list(objs)
        with transaction.atomic(using=self.db):
            updated = super().bulk_update(objs, *args, **kwargs)
            bump_instances(self.model, objs)
        return updated

    def update(self, **kwargs: Any) -> int:
        with transaction.atomic(using=self.db):
            # Read before the update changes the rows (one transaction: the order is free).
            self._bump_rows()
            topic_path = topic_path_of(self.model)
            first = (topic_path or "").partition("__")[0].removesuffix("_id")
            if topic_path is not None and (first in kwargs or f"{first}_id" in kwargs):
                # Rows moved to other topics, which the update does not name: all of them.
                path = self.model.collection_path  # type: ignore[attr-defined]
                bump(*self.order_by().values_list(path, flat=True).distinct())
            updated = super().update(**kwargs)
        return updated

    update.alters_data = True  # type: ignore[attr-defined]

    def delete(self) -> tuple[int, dict[str, int]]:
        with transaction.atomic(using=self.db):
            self._bump_rows()
            return super().delete()

    delete.alters_data = True  # type: ignore[attr-defined]
    delete.queryset_only = True  # type: ignore[attr-defined]


class MethodResult(models.Model):
    """A stored result of a paper method (abstract: no table, no fields of its own)."""

    # How a row reaches its collection, as a lookup path ("topic__collection_id").
    collection_path: ClassVar[str] = "topic__collection_id"
    # How it reaches its topic, where the collection path does not say ("rag_output__topic_id");
    # None: derived from ``collection_path`` (``topic_path_of``).
    topic_path: ClassVar[str | None] = None

    objects = ResultQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        super().save(*args, **kwargs)
        bump_instances(type(self), [self])

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        with transaction.atomic():
            bump_instances(type(self), [self])
            return super().delete(*args, **kwargs)
