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
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from django.db import models, transaction

from crux_app.data_version import bump


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


class ResultQuerySet(models.QuerySet):
    """Bulk writes that bump the collections they touch."""

    def _collections(self) -> set[int]:
        path = self.model.collection_path  # type: ignore[attr-defined]
        return set(self.order_by().values_list(path, flat=True).distinct())

    def bulk_create(self, objs: Iterable[models.Model], *args: Any, **kwargs: Any) -> list:
        created = super().bulk_create(objs, *args, **kwargs)
        bump(*collections_of(self.model, created))
        return created

    def bulk_update(self, objs: Iterable[models.Model], *args: Any, **kwargs: Any) -> int:
        objs = list(objs)
        with transaction.atomic(using=self.db):
            updated = super().bulk_update(objs, *args, **kwargs)
            bump(*collections_of(self.model, objs))
        return updated

    def update(self, **kwargs: Any) -> int:
        with transaction.atomic(using=self.db):
            collections = self._collections()
            updated = super().update(**kwargs)
            bump(*collections)
        return updated

    update.alters_data = True  # type: ignore[attr-defined]

    def delete(self) -> tuple[int, dict[str, int]]:
        with transaction.atomic(using=self.db):
            bump(*self._collections())
            return super().delete()

    delete.alters_data = True  # type: ignore[attr-defined]
    delete.queryset_only = True  # type: ignore[attr-defined]


class MethodResult(models.Model):
    """A stored result of a paper method (abstract: no table, no fields of its own)."""

    # How a row reaches its collection, as a lookup path ("topic__collection_id").
    collection_path: ClassVar[str] = "topic__collection_id"

    objects = ResultQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        super().save(*args, **kwargs)
        bump(*collections_of(type(self), [self]))

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        with transaction.atomic():
            bump(*collections_of(type(self), [self]))
            return super().delete(*args, **kwargs)
