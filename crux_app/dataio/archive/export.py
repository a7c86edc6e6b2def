"""Write a collection archive: one ``.tar.gz`` holding a JSON Lines member per model (rows in
primary-key order, keys as the source's ids) and ``manifest.json`` (format version, counts
and sha256 per member, the code version, the model ids behind each judge).

Annotators and other users appear under stable pseudonyms (an HMAC of the user name under
the install's secret key) unless ``with_accounts``; passwords never leave the install.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import os
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models, transaction

from crux_app.dataio.archive.models import ArchivedModel, archived_models, history_models
from crux_app.models import Collection

FORMAT = "crux-collection-archive"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
CHUNK_ROWS = 2000
JUDGE = "crux_app.Judge"
# Account fields carried with ``--with-accounts`` (never the password or superuser flag).
ACCOUNT_FIELDS = ("first_name", "last_name", "email", "is_active", "is_staff")


class ArchiveEncoder(DjangoJSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, bytes | memoryview):
            return {"base64": base64.b64encode(bytes(o)).decode()}
        return super().default(o)


def code_version() -> str:
    """``git describe`` of the checkout, or ``CRUX_VERSION`` where there is no git."""
    root = Path(settings.BASE_DIR)
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return os.environ.get("CRUX_VERSION", "unknown")


def pseudonym(username: str) -> str:
    """The same user, the same name in every archive of this install; not reversible."""
    digest = hmac.new(settings.SECRET_KEY.encode(), username.encode(), hashlib.sha256)
    return f"user-{digest.hexdigest()[:12]}"


def _fields(entry: ArchivedModel) -> list[models.Field]:
    return [f for f in entry.model._meta.concrete_fields if not getattr(f, "generated", False)]


def _row(entry: ArchivedModel, obj: models.Model, wanted: dict[str, set[int]]) -> dict:
    """One row as JSON: fields by attname, keys as source ids (noting the referenced rows)."""
    known = {e.label for e in archived_models()}
    fields: dict[str, Any] = {}
    for f in _fields(entry):
        if f.primary_key:
            continue
        value = getattr(obj, f.attname)
        if f.is_relation:
            target = f.related_model._meta.label
            if target not in known:
                value = None  # an operations row (the job that computed it): not archived
            elif value is not None and target != entry.label:
                wanted.setdefault(target, set()).add(value)
        else:
            value = f.value_from_object(obj)
        fields[f.attname] = value
    row: dict[str, Any] = {"pk": obj.pk, "fields": fields}
    many = {}
    for m2m in entry.model._meta.many_to_many if entry.owned else ():
        if not m2m.remote_field.through._meta.auto_created:
            continue  # its own model (an output's contexts) is archived as rows
        ids = sorted(getattr(obj, m2m.name).values_list("pk", flat=True))
        many[m2m.name] = ids
        wanted.setdefault(m2m.related_model._meta.label, set()).update(ids)
    if many:
        row["m2m"] = many
    return row


def _rows(
    entry: ArchivedModel,
    collection: Collection,
    wanted: dict[str, set[int]],
    with_accounts: bool,
) -> Iterator[dict]:
    manager = entry.model._base_manager
    if entry.owned:
        rows = manager.filter(**{entry.path: collection.pk})
    elif entry.part_of:
        whole = entry.model._meta.get_field(entry.part_of)
        parents = sorted(wanted.get(whole.related_model._meta.label, ()))
        rows = manager.filter(**{f"{whole.attname}__in": parents})
    else:
        rows = manager.filter(pk__in=sorted(wanted.get(entry.label, ())))
    for obj in rows.order_by("pk").iterator(chunk_size=CHUNK_ROWS):
        row = _row(entry, obj, wanted)
        if entry.model is get_user_model():
            row = _user_row(obj, with_accounts)
        elif not with_accounts and entry.label == JUDGE and obj.user_id:
            # a person's judge is named after the person
            user = get_user_model()._base_manager.get(pk=obj.user_id)
            name = row["fields"]["name"].replace(user.get_username(), pseudonym(user.username))
            row["fields"]["name"] = name
        yield row


def _writing_order(entries: tuple[ArchivedModel, ...]) -> list[ArchivedModel]:
    """Owned rows first (they name the judges and users), then the referenced models latest
    in insertion order first (judges name their users), each whole before its parts."""
    referenced = [e for e in entries if not e.owned and not e.part_of][::-1]
    ordered = [e for e in entries if e.owned]
    for entry in referenced:
        ordered.append(entry)
        ordered += [
            e
            for e in entries
            if e.part_of and e.model._meta.get_field(e.part_of).related_model is entry.model
        ]
    return ordered


def _user_row(user: models.Model, with_accounts: bool) -> dict:
    username = user.get_username()  # type: ignore[attr-defined]
    if not with_accounts:
        return {"pk": user.pk, "fields": {"username": pseudonym(username), "is_active": True}}
    fields = {"username": username}
    fields |= {name: getattr(user, name) for name in ACCOUNT_FIELDS if hasattr(user, name)}
    return {"pk": user.pk, "fields": fields}


def member_name(entry: ArchivedModel) -> str:
    return f"rows/{entry.label}.jsonl"


def export_collection(collection: Collection, out: Path, *, with_accounts: bool = False) -> dict:
    """Write ``collection``'s archive to ``out`` (a temporary file renamed into place);
    returns the manifest. Every member is read from one snapshot of the database, so writes
    during the export never leave a label without its topic."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return _export(collection, out, with_accounts)


def _export(collection: Collection, out: Path, with_accounts: bool) -> dict:
    entries = archived_models()
    wanted: dict[str, set[int]] = {}
    judges: list[dict] = []
    out = Path(out)
    with tempfile.TemporaryDirectory(dir=out.parent) as folder:
        written: dict[str, tuple[int, str]] = {}
        for entry in _writing_order(entries):
            path = Path(folder) / member_name(entry).replace("/", "_")
            digest, count = hashlib.sha256(), 0
            with path.open("wb") as handle:
                for row in _rows(entry, collection, wanted, with_accounts):
                    if entry.label == JUDGE:
                        judges.append(row["fields"])
                    line = json.dumps(row, cls=ArchiveEncoder, sort_keys=True).encode() + b"\n"
                    handle.write(line)
                    digest.update(line)
                    count += 1
            written[entry.label] = (count, digest.hexdigest())
        history = _write_history(collection, Path(folder), with_accounts)
        manifest = _manifest(collection, entries, written, judges, with_accounts)
        manifest["history"] = history
        partial = out.with_name(f".{out.name}.part")
        try:
            with tarfile.open(partial, "w:gz") as archive:
                data = json.dumps(manifest, indent=1, sort_keys=True).encode()
                info = tarfile.TarInfo(MANIFEST)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
                for entry in entries:
                    archive.add(
                        Path(folder) / member_name(entry).replace("/", "_"), member_name(entry)
                    )
                for table in history:
                    archive.add(Path(folder) / table["member"].replace("/", "_"), table["member"])
            partial.chmod(0o600)  # as the uploads and exports: the owner's only
            os.replace(partial, out)
        finally:
            partial.unlink(missing_ok=True)
    return manifest


def _manifest(
    collection: Collection,
    entries: tuple[ArchivedModel, ...],
    written: dict[str, tuple[int, str]],
    judges: list[dict],
    with_accounts: bool,
) -> dict:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "collection": collection.name,
        "created_at": datetime.now(UTC).isoformat(),
        "code_version": code_version(),
        "with_accounts": with_accounts,
        "tables": [
            {
                "model": entry.label,
                "member": member_name(entry),
                "rows": written[entry.label][0],
                "sha256": written[entry.label][1],
            }
            for entry in entries
        ],
        # which models produced each judge's labels
        "judges": sorted(
            (
                {k: row[k] for k in ("name", "kind", "model_id", "prompt_version") if k in row}
                for row in judges
            ),
            key=lambda judge: judge["name"],
        ),
    }


def _write_history(collection: Collection, folder: Path, with_accounts: bool) -> list[dict]:
    """The collection's audit trail (``history_models``), one member per model, oldest first;
    user names become pseudonyms unless ``with_accounts``."""
    tables = []
    for model in history_models():
        member = f"history/{model._meta.label}.jsonl"
        digest, count = hashlib.sha256(), 0
        fields = [f for f in model._meta.concrete_fields if not getattr(f, "generated", False)]
        rows = model._base_manager.filter(collection_id=collection.pk).order_by("pk")
        with (folder / member.replace("/", "_")).open("wb") as handle:
            for obj in rows.iterator(chunk_size=CHUNK_ROWS):
                row = {f.attname: f.value_from_object(obj) for f in fields}
                if not with_accounts and row.get("username"):
                    row["username"] = pseudonym(row["username"])
                line = json.dumps(row, cls=ArchiveEncoder, sort_keys=True).encode() + b"\n"
                handle.write(line)
                digest.update(line)
                count += 1
        tables.append(
            {"model": model._meta.label, "member": member, "rows": count,
             "sha256": digest.hexdigest()}
        )  # fmt: skip
    return tables
