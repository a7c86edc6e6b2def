"""The audited tables, declared once, and the PostgreSQL triggers that record their changes.

Each audited table gets three statement-level AFTER triggers (insert, update, delete) with
transition tables; one ``INSERT ... SELECT`` per statement writes a record per changed row
(old and new values as JSON, the collection, and the acting context of ``audit.context``).
COPY, the staged upserts' ``INSERT ... ON CONFLICT``, ``update()``, raw SQL and the ORM are
recorded alike, in the writing transaction. The function and the append-only guard are made by
the migration; the per-table triggers are (re)made after every ``migrate`` from ``AUDITED``,
so a table of any app is covered by one line here and no migration of its own. Models are
named by label, not imported (crux_app imports no app above it). SQLite (the demo) has no
triggers: there only the events the application records itself are kept.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.apps import apps as global_apps
from django.db import connections

FUNCTION = "crux_audit_rows"


@dataclass(frozen=True)
class Audited:
    """One audited model: how a row reaches its collection (a lookup path ending in the
    collection's id, "" for none), columns whose value is never stored (secrets), columns
    whose change alone is not worth a record (bookkeeping), and the operations recorded."""

    model: str  # "app_label.ModelName"
    collection: str = ""
    hidden: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    operations: tuple[str, ...] = ("insert", "update", "delete")


AUDITED: tuple[Audited, ...] = (
    # The data version's bookkeeping moves with every write of the collection's rows.
    Audited("crux_app.Collection", "id", ignored=("data_version", "unit_epoch", "data_changed_at")),
    Audited("crux_app.Topic", "collection_id", operations=("delete",)),
    Audited("crux_app.Run", "collection_id", operations=("delete",)),
    Audited("crux_app.GeneratedOutput", "collection_id", operations=("delete",)),
    Audited("crux_app.Judge"),
    Audited("crux_app.Judgment", "topic__collection_id"),
    Audited("crux_app.PassageQrel", "topic__collection_id"),
    Audited("crux_app.SubtopicQrel", "topic__collection_id"),
    Audited("crux_app.CoverageLabel", "output__collection_id"),
    Audited("annotation.Campaign", "collection_id"),
    Audited("annotation.ReviewCampaign", "collection_id"),
    # A reservation and its draft are not labels: only the answer and the state are recorded.
    Audited(
        "annotation.Assignment",
        "campaign__collection_id",
        ignored=("draft", "reserved_at", "reserved_until", "time_spent_ms"),
        operations=("update", "delete"),
    ),
    Audited("annotation.ReviewDecision", "campaign__collection_id"),
    Audited("annotation.AggregationRun", "collection_id"),
    Audited("annotation.AggregatedLabel", "run__collection_id"),
    Audited("api.ApiToken", hidden=("digest",), ignored=("last_used_at",)),
    Audited("crux_app.Workspace"),
    Audited("crux_app.WorkspaceMember"),
    Audited("webhooks.Endpoint", "collection_id", hidden=("secret",)),
)


def collection_sql(model: Any, path: str, alias: str = "r") -> str:
    """SQL for the collection id of row ``alias`` of ``model``, following ``path``
    ("topic__collection_id": a subquery on the topic's table); "NULL" for none."""
    if not path:
        return "NULL"
    *hops, last = path.split("__")
    expression = f"{alias}.{model._meta.get_field(last if not hops else hops[0]).column}"
    if not hops:
        return expression
    current = model._meta.get_field(hops[0]).related_model
    for name in [*hops[1:], last]:
        field = current._meta.get_field(name)
        table, pk = current._meta.db_table, current._meta.pk.column
        expression = f"(SELECT {field.column} FROM {table} WHERE {pk} = {expression})"
        current = getattr(field, "related_model", None) or current
    return expression


def _array(values: tuple[str, ...]) -> str:
    return "{" + ",".join(values) + "}"


def trigger_sql(entry: Audited, model: Any) -> list[str]:
    """The statements that (re)make ``entry``'s triggers on its table."""
    table = model._meta.db_table
    statements = []
    for operation in ("insert", "update", "delete"):
        name = f"audit_{operation}"
        statements.append(f'DROP TRIGGER IF EXISTS {name} ON "{table}"')
        if operation not in entry.operations:
            continue
        referencing = {
            "insert": "NEW TABLE AS new_rows",
            "update": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
            "delete": "OLD TABLE AS old_rows",
        }[operation]
        arguments = ", ".join(
            "'" + a.replace("'", "''") + "'"
            for a in (
                f"{model._meta.model_name}",
                collection_sql(model, entry.collection),
                _array(entry.hidden),
                _array(entry.ignored),
            )
        )
        statements.append(
            f'CREATE TRIGGER {name} AFTER {operation.upper()} ON "{table}" '
            f"REFERENCING {referencing} FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}({arguments})"
        )
        # ALWAYS: the imports' merges run with session_replication_role = replica (their keys
        # checked set-based), which turns ordinary triggers off; the audit must still fire.
        statements.append(f'ALTER TABLE "{table}" ENABLE ALWAYS TRIGGER {name}')
    return statements


def install_triggers(using: str = "default", apps: Any = global_apps, **kwargs: Any) -> None:
    """(Re)make every audited table's triggers (after ``migrate``; PostgreSQL only)."""
    db = connections[using]
    if db.vendor != "postgresql":
        return
    statements = []
    for entry in AUDITED:
        try:
            model = apps.get_model(entry.model)
        except LookupError:  # an app not installed here
            continue
        statements += trigger_sql(entry, model)
    # The function's comment holds the statements' digest: a migrate (or a test's flush)
    # that would make the same triggers again changes nothing.
    digest = hashlib.sha256("\n".join(statements).encode()).hexdigest()
    with db.cursor() as cursor:
        cursor.execute(
            "SELECT obj_description(oid, 'pg_proc') FROM pg_proc WHERE proname = %s", [FUNCTION]
        )
        found = cursor.fetchone()
        if found is None or found[0] == digest:  # before the audit migration, or up to date
            return
        for statement in statements:
            cursor.execute(statement)
        cursor.execute(f"COMMENT ON FUNCTION {FUNCTION}() IS '{digest}'")
