"""Check a merge's foreign keys once per referenced row instead of once per inserted row.

PostgreSQL checks a foreign key with a row trigger: at commit, for every inserted row and
every key, one ``SELECT 1 FROM parent WHERE id = $1 FOR KEY SHARE``. For a release's 1.5
million judgments that is six million lookups, half of the import's time. A merge
knows which parents its rows reference (the distinct ids in its stage), so it can take the
same locks with one set-based statement per key, verify that every parent exists, and insert
with the per-row triggers off (``session_replication_role = replica``, as ``pg_restore
--disable-triggers`` loads data). The guarantee is the trigger's: a referenced row exists when
the rows go in, and the FOR KEY SHARE lock, held until commit, keeps a concurrent transaction
from deleting it or changing its key before then.

Only a role allowed to set ``session_replication_role`` (a superuser, or on PostgreSQL 15+ a
role granted ``SET ON PARAMETER session_replication_role``) and only a table whose triggers
all belong to foreign keys take this path; otherwise the merge runs with the triggers on, as
any insert does.
"""

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from django.db import IntegrityError, connection, models

ROLE_SETTING = "session_replication_role"
# PostgreSQL 15 added per-parameter SET privileges (GRANT SET ON PARAMETER ...).
PARAMETER_PRIVILEGES_FROM = 150000


def may_skip_row_triggers(model: type[models.Model]) -> bool:
    """Whether a merge into ``model``'s table may check its keys set-based (see module doc)."""
    if connection.vendor != "postgresql":
        return False
    privilege = (
        f"has_parameter_privilege('{ROLE_SETTING}', 'SET')"
        if connection.pg_version >= PARAMETER_PRIVILEGES_FROM
        else "false"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT current_setting('is_superuser') = 'on' OR {privilege}, "
            # Replica mode turns off every ordinary trigger, a deferred unique check's too;
            # an ENABLE ALWAYS trigger (the audit trail's) fires in it all the same.
            "NOT EXISTS (SELECT 1 FROM pg_trigger t LEFT JOIN pg_constraint c "
            "ON c.oid = t.tgconstraint WHERE t.tgrelid = %s::regclass "
            "AND c.contype IS DISTINCT FROM 'f' AND t.tgenabled <> 'A')",
            [model._meta.db_table],
        )
        allowed, only_key_triggers = cursor.fetchone()
    return allowed and only_key_triggers


def _lock_parents(cursor, field: models.ForeignKey, ids_sql: str, params: Sequence) -> None:
    """Lock every row of ``field``'s parent table whose key ``ids_sql`` selects; a missing one
    fails as the foreign key's trigger would."""
    quote = connection.ops.quote_name
    parent = quote(field.related_model._meta.db_table)
    key = quote(field.target_field.column)
    cursor.execute(
        f"WITH wanted AS (SELECT DISTINCT w.id FROM ({ids_sql}) AS w(id) WHERE w.id IS NOT NULL), "
        f"locked AS (SELECT p.{key} FROM {parent} p WHERE p.{key} IN (SELECT id FROM wanted) "
        "FOR KEY SHARE OF p) "
        "SELECT (SELECT count(*) FROM wanted), (SELECT count(*) FROM locked)",
        list(params),
    )
    wanted, locked = cursor.fetchone()
    if wanted != locked:
        raise IntegrityError(
            f"{wanted - locked} row(s) referenced by {field.model._meta.db_table}."
            f"{field.column} do not exist in {field.related_model._meta.db_table}"
        )


@contextmanager
def set_based_reference_checks(
    model: type[models.Model],
    columns: Sequence[str],
    parents: Mapping[str, tuple[str, Sequence]],
) -> Iterator[None]:
    """Around one merge into ``model`` that writes ``columns`` (attnames): lock and verify the
    parents, then let the merge run without per-row foreign-key triggers.

    ``parents`` maps each foreign-key attname among ``columns`` to (SQL selecting the ids the
    merge will write there, its parameters). Without the privilege this does nothing and the
    triggers check each row.
    """
    keys = {
        f.attname: f
        for f in model._meta.concrete_fields
        if isinstance(f, models.ForeignKey) and f.attname in columns
    }
    if set(parents) != set(keys):
        raise ValueError(f"parents must name exactly the foreign keys written: {sorted(keys)}")
    # SET LOCAL needs a transaction to end it; the importers all run in one.
    if not connection.in_atomic_block or not may_skip_row_triggers(model):
        yield
        return
    with connection.cursor() as cursor:
        for attname, (ids_sql, params) in parents.items():
            _lock_parents(cursor, keys[attname], ids_sql, params)
        cursor.execute(f"SELECT current_setting('{ROLE_SETTING}')")
        (previous,) = cursor.fetchone()
        cursor.execute("SELECT set_config(%s, 'replica', true)", [ROLE_SETTING])
    yield
    # Reached only when the merge succeeded; a failed one rolls the setting back with it.
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, true)", [ROLE_SETTING, previous])
