"""Earlier states of the schema, for the upgrade test and the migration bench: migrate a
database back to the leaf migrations of an earlier commit, write rows through that state's
historical models, then migrate to today.

``EARLIER_STATE`` is the project apps' leaf migrations at commit 8f9d228 (issue #23, "First day
on a real collection"); an app that had no migrations then is migrated to zero.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.apps import apps as current_apps
from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from crux_app.account_setup import project_app_labels

EARLIER_COMMIT = "8f9d228"
EARLIER_STATE: dict[str, str] = {
    "crux_app": "0007_worker_heartbeat",
    "annotation": "0003_prolific_binding",
    "dense": "0001_initial",
    "reteval": "0001_initial",
    "scaar": "0001_initial",
    "seper": "0001_initial",
}


def earlier_targets(executor: MigrationExecutor) -> list[tuple[str, str | None]]:
    """(app, migration) targets of EARLIER_STATE for every project app with migrations (one
    that had none at EARLIER_COMMIT: None, migrated to zero); Django's own apps stay."""
    with_migrations = {app for app, _ in executor.loader.disk_migrations}
    return [(app, EARLIER_STATE.get(app)) for app in project_app_labels() if app in with_migrations]


def migrate_to_earlier_state() -> Apps:
    """Migrate the default database back to EARLIER_STATE; its historical models."""
    executor = MigrationExecutor(connection)
    targets = earlier_targets(executor)
    executor.migrate(targets)
    return (
        MigrationExecutor(connection)
        .loader.project_state([t for t in targets if t[1] is not None])
        .apps
    )


def migrate_to_today() -> float:
    """Apply every migration not yet applied; the seconds it took."""
    executor = MigrationExecutor(connection)
    started = time.perf_counter()
    executor.migrate(executor.loader.graph.leaf_nodes())
    return time.perf_counter() - started


def _fk_order(models: Iterable[type]) -> list[type]:
    """Models ordered so that a model comes after those its foreign keys point at."""
    pending = {m._meta.label_lower: m for m in models}
    ordered: list[type] = []
    while pending:
        ready = [
            label
            for label, model in pending.items()
            if not any(
                f.many_to_one
                and f.related_model is not None
                and f.related_model._meta.label_lower in pending
                and f.related_model._meta.label_lower != label
                for f in model._meta.concrete_fields
            )
        ]
        if not ready:
            raise ValueError(f"foreign keys in a circle among {sorted(pending)}")
        for label in sorted(ready):
            ordered.append(pending.pop(label))
    return ordered


def snapshot_rows(app_labels: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Every row of the apps' current models, by model label, as {attname: value}."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for label in app_labels:
        for model in current_apps.get_app_config(label).get_models():
            names = [f.attname for f in model._meta.concrete_fields]
            found = list(model._base_manager.order_by("pk").values(*names))
            if found:
                rows[model._meta.label_lower] = found
    return rows


def write_rows(historical: Apps, rows: Mapping[str, list[dict[str, Any]]]) -> dict[str, int]:
    """Create ``rows`` through the historical models (fields they lack are left out; fields
    only they have get their default); the rows written per model label."""
    models = []
    for label in rows:
        try:
            models.append(historical.get_model(label))
        except LookupError:
            continue  # a model that did not exist yet
    written = {}
    for model in _fk_order(models):
        fields = {f.attname: f for f in model._meta.concrete_fields}
        objects = []
        for row in rows[model._meta.label_lower]:
            values = {name: value for name, value in row.items() if name in fields}
            for name, field in fields.items():
                if name not in values and field.has_default():
                    values[name] = field.get_default()
            objects.append(model(**values))
        model._base_manager.bulk_create(objects, batch_size=2000)
        written[model._meta.label_lower] = len(objects)
    with connection.cursor() as cursor:  # the id sequences after explicit ids
        for model in models:
            table, pk = model._meta.db_table, model._meta.pk.column
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{pk}'), "
                f"COALESCE((SELECT MAX({pk}) FROM {table}), 1))"
            )
    return written
