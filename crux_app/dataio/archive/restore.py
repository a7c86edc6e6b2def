"""Restore a collection archive (``archive.export``) into this install, in one transaction.

The archive is checked before anything is written: a known format no newer than this code
reads, every member's sha256 and row count as the manifest says, every model known here, and
no collection of the same name. Rows are then inserted in the order their keys need, each
with a new id; keys are remapped from the source's ids. Users and judges are matched by
name (created where missing, users without a usable password); an owned row's unique text
(a campaign's slug, a result's key) that another collection already uses gets a suffix.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import tarfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from django.contrib.auth import get_user_model
from django.db import models, transaction

from crux_app.audit.events import ARCHIVE_IMPORT, record_event
from crux_app.dataio.archive.export import FORMAT, FORMAT_VERSION, MANIFEST
from crux_app.dataio.archive.models import ArchivedModel, by_label
from crux_app.models import Collection, Workspace
from crux_app.models.workspace import DEFAULT_WORKSPACE

BATCH = 1000


class ArchiveRefused(ValueError):
    """An archive this install will not restore; the message says why."""


def read_manifest(archive: tarfile.TarFile, source: str) -> dict:
    """The manifest, checked: format, version, members' checksums and counts, known models."""
    try:
        handle = archive.extractfile(MANIFEST)
        manifest = json.loads(handle.read()) if handle else None
    except (KeyError, ValueError) as error:
        raise ArchiveRefused(f"{source}: no readable {MANIFEST} ({error})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveRefused(f"{source}: not a collection archive ({MANIFEST} names no {FORMAT})")
    version = manifest.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ArchiveRefused(
            f"{source}: archive format version {version} is newer than this install reads "
            f"({FORMAT_VERSION}); upgrade this install first"
        )
    known = by_label()
    listed = {MANIFEST}
    for table in manifest.get("tables", []) + manifest.get("history", []):
        label, member = table.get("model"), table.get("member")
        if table in manifest.get("tables", []) and label not in known:
            raise ArchiveRefused(f"{source}: rows of {label}, a model this install does not have")
        listed.add(member)
        digest, count = hashlib.sha256(), 0
        try:
            handle = archive.extractfile(member)
        except KeyError:
            handle = None
        if handle is None:
            raise ArchiveRefused(f"{source}: member {member} is missing")
        for line in handle:
            digest.update(line)
            count += 1
        if digest.hexdigest() != table.get("sha256") or count != table.get("rows"):
            raise ArchiveRefused(
                f"{source}: member {member} is corrupted (its sha256 or row count differs "
                "from the manifest's)"
            )
    extra = sorted(set(archive.getnames()) - listed)
    if extra:
        raise ArchiveRefused(f"{source}: members the manifest does not list: {extra[:5]}")
    return manifest


def _decode(field: models.Field, value: Any) -> Any:
    if value is None or field.is_relation:
        return value
    if (
        isinstance(value, dict)
        and set(value) == {"base64"}
        and field.get_internal_type() in ("BinaryField",)
    ):
        return base64.b64decode(value["base64"])
    return field.to_python(value)


@contextlib.contextmanager
def _stored_timestamps(model: type[models.Model]) -> Iterator[None]:
    """Keep the archive's ``created_at`` / ``updated_at`` (not the time of the import)."""
    changed = [
        (f, f.auto_now, f.auto_now_add)
        for f in model._meta.concrete_fields
        if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
    ]
    for f, _, _ in changed:
        f.auto_now = f.auto_now_add = False
    try:
        yield
    finally:
        for f, now, now_add in changed:
            f.auto_now, f.auto_now_add = now, now_add


def _lines(archive: tarfile.TarFile, member: str) -> Iterator[dict]:
    handle: IO[bytes] | None = archive.extractfile(member)
    assert handle is not None  # checked by read_manifest
    for line in handle:
        yield json.loads(line)


def import_collection(
    path: Path, *, new_name: str | None = None, workspace: Workspace | None = None
) -> Collection:
    """Restore the archive at ``path`` (as ``new_name`` where given) into ``workspace`` (None:
    ``default``); all or nothing."""
    source = Path(path).name
    if workspace is None:
        workspace = Workspace.objects.get_or_create(name=DEFAULT_WORKSPACE)[0]
    try:
        with tarfile.open(path, "r:gz") as archive:
            return _restore(archive, source, new_name, workspace)
    except (OSError, EOFError, tarfile.TarError, zlib.error) as error:
        raise ArchiveRefused(f"{source}: a corrupted or unreadable .tar.gz ({error})") from None


def _restore(
    archive: tarfile.TarFile, source: str, new_name: str | None, workspace: Workspace
) -> Collection:
    manifest = read_manifest(archive, source)
    name = new_name or str(manifest.get("collection", ""))
    if Collection.objects.filter(name=name).exists():
        raise ArchiveRefused(
            f"a collection named {name!r} exists; import it under another name (--as NEW)"
        )
    known = by_label()
    ids: dict[str, dict[int, int]] = {}
    created: dict[str, set[int]] = {}
    many: list[tuple[ArchivedModel, int, dict]] = []
    with transaction.atomic():
        for table in manifest["tables"]:
            entry = known[table["model"]]
            rows = _lines(archive, table["member"])
            if entry.model is Workspace:
                # Where the collection goes is this install's choice: the source's workspace
                # stands for the one given (it is neither matched by name nor made here).
                ids[entry.label] = {row["pk"]: workspace.pk for row in rows}
                continue
            with _stored_timestamps(entry.model):
                if entry.part_of:
                    whole = entry.model._meta.get_field(entry.part_of)
                    new = created.get(whole.related_model._meta.label, set())
                    rows = (r for r in rows if ids_of(whole, r, ids) in new)
                    ids[entry.label] = _insert_owned(entry, rows, ids, name, many)
                elif entry.owned:
                    ids[entry.label] = _insert_owned(entry, rows, ids, name, many)
                else:
                    ids[entry.label] = _match_referenced(entry, rows, ids, created)
        for entry, new_pk, relations in many:
            _set_many(entry, new_pk, relations, ids)
        collection = Collection.objects.get(name=name)
        if collection.workspace_id != workspace.pk:  # an archive written before workspaces
            collection.workspace = workspace
            collection.save(update_fields=["workspace"])
        record_event(
            ARCHIVE_IMPORT,
            collection.pk,
            source=source,
            archived_as=manifest.get("collection"),
            code_version=manifest.get("code_version"),
            rows={table["model"]: table["rows"] for table in manifest["tables"]},
            history_rows=sum(table["rows"] for table in manifest.get("history", [])),
        )
        return collection


def _mapped(entry: ArchivedModel, fields: dict, ids: dict[str, dict[int, int]]) -> dict:
    """The row's field values for this install: keys remapped, values decoded."""
    values = {}
    for f in entry.model._meta.concrete_fields:
        if f.primary_key or getattr(f, "generated", False) or f.attname not in fields:
            continue
        value = fields[f.attname]
        if f.is_relation and value is not None:
            value = ids.get(f.related_model._meta.label, {}).get(value)
            if value is None and not f.null:
                raise ArchiveRefused(
                    f"{entry.label}.{f.name} points at a row the archive does not hold"
                )
        values[f.attname] = _decode(f, value)
    return values


def _unique_text(entry: ArchivedModel) -> list[models.Field]:
    return [
        f
        for f in entry.model._meta.concrete_fields
        if f.unique and not f.primary_key and not f.is_relation and isinstance(f, models.CharField)
    ]


def _free(field: models.CharField, value: str, name: str, taken: set[str]) -> str:
    """``value`` made unique: ``value-name``, or a digest where that is too long."""
    candidate = f"{value}-{name}"
    if len(candidate) > (field.max_length or 255):
        candidate = hashlib.sha256(candidate.encode()).hexdigest()[: field.max_length]
    while candidate in taken:
        candidate = hashlib.sha256(candidate.encode()).hexdigest()[: field.max_length]
    return candidate


def _insert_owned(
    entry: ArchivedModel,
    rows: Iterator[dict],
    ids: dict[str, dict[int, int]],
    name: str,
    many: list[tuple[ArchivedModel, int, dict]],
) -> dict[int, int]:
    mapping: dict[int, int] = {}
    unique = _unique_text(entry)
    batch: list[tuple[dict, models.Model]] = []

    def flush() -> None:
        for f in unique:
            wanted = [getattr(obj, f.attname) for _, obj in batch]
            taken = set(
                entry.model._base_manager.filter(**{f"{f.attname}__in": wanted}).values_list(
                    f.attname, flat=True
                )
            )
            for _, obj in batch:
                if getattr(obj, f.attname) in taken:
                    setattr(obj, f.attname, _free(f, getattr(obj, f.attname), name, taken))
        created = entry.model._base_manager.bulk_create([obj for _, obj in batch])
        for (row, _), obj in zip(batch, created, strict=True):
            mapping[row["pk"]] = obj.pk
            if row.get("m2m"):
                many.append((entry, obj.pk, row["m2m"]))
        batch.clear()

    for row in rows:
        values = _mapped(entry, row["fields"], ids)
        if entry.model is Collection:
            values["name"] = name
        batch.append((row, entry.model(**values)))
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    return mapping


def ids_of(field: models.Field, row: dict, ids: dict[str, dict[int, int]]) -> int | None:
    """The id on this install of the row that ``row``'s ``field`` names."""
    return ids.get(field.related_model._meta.label, {}).get(row["fields"].get(field.attname))


def _match_referenced(
    entry: ArchivedModel,
    rows: Iterator[dict],
    ids: dict[str, dict[int, int]],
    created: dict[str, set[int]],
) -> dict[int, int]:
    """Referenced rows by natural key: this install's row where it has one, else a new row."""
    mapping: dict[int, int] = {}
    key = entry.model._meta.get_field(entry.natural_key)
    for row in rows:
        values = _mapped(entry, row["fields"], ids)
        found = entry.model._base_manager.filter(**{key.attname: values[key.attname]}).first()
        if found is None:
            found = entry.model(**values)
            if entry.model is get_user_model():
                found.set_unusable_password()  # type: ignore[attr-defined]
            found.save()
            created.setdefault(entry.label, set()).add(found.pk)
        mapping[row["pk"]] = found.pk
    return mapping


def _set_many(entry: ArchivedModel, pk: int, relations: dict, ids: dict) -> None:
    obj = entry.model._base_manager.get(pk=pk)
    for field_name, targets in relations.items():
        m2m = entry.model._meta.get_field(field_name)
        known = ids.get(m2m.related_model._meta.label, {})
        getattr(obj, field_name).set([known[t] for t in targets if t in known])
