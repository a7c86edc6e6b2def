"""Which models a collection archive holds, found from the installed apps' foreign keys.

A model *belongs to a collection* when a chain of required foreign keys leads from it to
``Collection`` (topics, judgments, every method's results, campaigns, their labels, review
decisions, aggregation runs, and any app's model added later, an audit trail included).
Rows reached only through nullable keys (jobs, webhook endpoints and events) are operations,
not data, and stay out. Rows of other models that the collection's rows point at are
*referenced* rows: those with a unique natural key (a judge's ``name``, a user's
``username``) travel with the archive and are matched by that key on import; a nullable
reference to anything else (the job that computed a result) is dropped. This module names no
method: a method's result model is found like any other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models

from crux_app.models import Collection


@dataclass(frozen=True)
class ArchivedModel:
    """One model of the archive: ``path`` filters its rows by collection (``topic__collection``),
    ``owned`` whether its rows belong to the collection or are referenced by natural key."""

    model: type[models.Model]
    path: str
    owned: bool = True
    natural_key: str = ""
    references: tuple[models.ForeignKey, ...] = field(default=())
    part_of: str = ""  # a part's key to its referenced row (an ensemble's members)

    @property
    def label(self) -> str:
        return self.model._meta.label


def relations(model: type[models.Model]) -> Iterator[models.ForeignKey]:
    """The concrete foreign keys (one-to-one included) of ``model``."""
    for f in model._meta.concrete_fields:
        if f.is_relation and (f.many_to_one or f.one_to_one):
            yield f  # type: ignore[misc]


def _natural_key(model: type[models.Model]) -> str:
    """A referenced model's unique text field that identifies a row across installs."""
    if model is get_user_model():
        return model.USERNAME_FIELD
    for f in model._meta.concrete_fields:
        text = f.get_internal_type() in ("CharField", "SlugField")
        if f.unique and not f.primary_key and not f.is_relation and text:
            return f.name
    for f in model._meta.concrete_fields:
        # one row per referenced row (an ensemble per judge): matched through that row
        if f.one_to_one and not f.null and _natural_key(f.related_model):
            return f.name
    return ""


# Rows that are part of a referenced row: restored with it when the import creates it (an
# ensemble's members with a new ensemble judge). Model label -> its key to the whole.
PARTS = {"crux_app.JudgeEnsembleMember": "ensemble"}


@cache
def archived_models() -> tuple[ArchivedModel, ...]:
    """Every archived model, in the order rows can be inserted (a row's targets first):
    referenced models (users, then judges), then the collection's own models."""
    owned_paths: dict[type[models.Model], str] = {Collection: ""}
    candidates = [m for m in apps.get_models() if not m._meta.proxy]
    changed = True
    while changed:
        changed = False
        for model in candidates:
            if model in owned_paths:
                continue
            for fk in relations(model):
                target = fk.related_model
                if fk.null or target is model or target not in owned_paths:
                    continue
                rest = owned_paths[target]
                owned_paths[model] = f"{fk.name}__{rest}" if rest else fk.name
                changed = True
                break
    owned_paths[Collection] = "pk"
    referenced = _referenced(list(owned_paths))
    ordered = _insertion_order(list(owned_paths) + referenced)
    entries = []
    for m in ordered:
        entries.append(
            ArchivedModel(
                model=m,
                path=owned_paths.get(m, ""),
                owned=m in owned_paths,
                natural_key="" if m in owned_paths else _natural_key(m),
                references=tuple(relations(m)),
            )
        )
        for label, key in PARTS.items():
            part = apps.get_model(label)
            if part._meta.get_field(key).related_model is m:
                entries.append(
                    ArchivedModel(part, "", False, "", tuple(relations(part)), part_of=key)
                )
    return tuple(entries)


def _referenced(owned: list[type[models.Model]]) -> list[type[models.Model]]:
    """The models with a natural key that owned rows (or referenced rows) point at."""
    found: list[type[models.Model]] = []
    queue = list(owned)
    while queue:
        model = queue.pop()
        targets = [fk.related_model for fk in relations(model)]
        if model in owned:  # a user's groups and permissions are not the collection's
            targets += [m2m.related_model for m2m in model._meta.many_to_many]
        for target in targets:
            if target in owned or target in found or not _natural_key(target):
                continue
            found.append(target)
            queue.append(target)
    return found


def _insertion_order(found: list[type[models.Model]]) -> list[type[models.Model]]:
    """``found`` ordered so that each model comes after the models its keys point at."""
    ordered: list[type[models.Model]] = []
    pending = sorted(found, key=lambda m: m._meta.label)
    while pending:
        for model in pending:
            needs = {fk.related_model for fk in relations(model)} & set(pending)
            if needs <= {model}:
                ordered.append(model)
                pending.remove(model)
                break
        else:  # a circle of required keys; none today
            raise RuntimeError(f"no insertion order for {[m._meta.label for m in pending]}")
    return ordered


def by_label() -> dict[str, ArchivedModel]:
    return {entry.label: entry for entry in archived_models()}


def history_models() -> list[type[models.Model]]:
    """Models that record a collection's history by its id as a plain number (the audit
    trail: it outlives the rows it names). Archived for the record, never restored: the
    restoring install's own trail records the import."""
    found = []
    for model in apps.get_models():
        names = {f.name: f for f in model._meta.concrete_fields}
        column = names.get("collection_id")
        if column is not None and not column.is_relation:
            found.append(model)
    return sorted(found, key=lambda m: m._meta.label)
