"""Upsert a whole file's rows of one table in one statement: COPY into a stage, one merge.

An importer validates each line in Python and ``add``s its row; on PostgreSQL the rows stream
through COPY into a temporary stage table (in chunks, so the importer may query between
them), and ``merge`` writes them with one statement:

- when the table holds no row in the stage's scope (a first import: no stored row shares a
  value of the key's first column with the stage), a plain ``INSERT ... SELECT``;
- otherwise ``INSERT ... SELECT ... ON CONFLICT DO UPDATE`` over the stage rows that differ
  from the stored ones (an anti-join), so an identical re-import neither rewrites nor locks
  a row, and writes nothing at all when no row differs.

The first is the same import a third faster: PostgreSQL's speculative insertion and the
anti-join are what the merge costs over a plain insert. A concurrent import of the same rows
between the check and the insert makes one of the two fail on the unique key, atomically.

On other databases (the SQLite demo) ``add`` writes each chunk through ``upsert_rows``'s
``bulk_create`` path as it fills; the stored rows are the same either way. Each ``unique``
key may occur once among the rows (the importers refuse duplicate lines), as PostgreSQL
refuses to update one row twice in one statement.
"""

import itertools
from collections.abc import Sequence

from django.db import connection, models

from .pg_copy import column_defaults, upsert_rows
from .reference_checks import set_based_reference_checks

CHUNK = 20_000
_stage_numbers = itertools.count(1)


def stage_name(table: str) -> str:
    """A temporary table name no other stage of this session holds."""
    return connection.ops.quote_name(f"stage_{table}_{next(_stage_numbers)}")


def uses_copy() -> bool:
    """Whether this database takes the COPY-and-merge path (PostgreSQL) or the ORM's."""
    return connection.vendor == "postgresql"


def count_rows(from_where: str, params: Sequence) -> int:
    """How many rows ``FROM ... WHERE ...`` selects.

    Counted, not ``EXISTS``: a fast-start plan for EXISTS over an anti-join may probe the
    target with a sequential scan per stage row when its statistics predate this import."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) {from_where}", list(params))
        return cursor.fetchone()[0]


def holds_any(table: str, where: str, params: Sequence) -> bool:
    """Whether ``table`` has a row matching ``where`` (which an index should serve)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {table} WHERE {where})", list(params))
        return cursor.fetchone()[0]


class StagedUpsert:
    """Rows (values for ``columns``, attnames) upserted on ``unique`` at ``merge``; a stored
    row with the same key gets the ``update`` columns of the new one when they differ."""

    def __init__(
        self,
        model: type[models.Model],
        columns: Sequence[str],
        unique: Sequence[str],
        update: Sequence[str],
    ) -> None:
        self.model = model
        self.columns = list(columns)
        self.unique = list(unique)
        self.update = list(update)
        self.copy = uses_copy()
        self.rows = 0
        self._pending: list[Sequence] = []
        self._stage: str | None = None
        # The key's first column scopes the "nothing stored yet" check (an index leads with it).
        self._scope_at = self.columns.index(self.unique[0])
        self._scope: set = set()

    def add(self, row: Sequence) -> None:
        self._pending.append(row)
        if len(self._pending) >= CHUNK:
            self._flush()

    def merge(self) -> int:
        """Write every added row; returns how many rows were added."""
        self._flush()
        if self._stage is not None:
            self._merge_stage()
        return self.rows

    def _flush(self) -> None:
        if not self._pending:
            return
        if self.copy:
            self._scope.update(row[self._scope_at] for row in self._pending)
            self._copy(self._pending)
        else:
            upsert_rows(self.model, self.columns, self._pending, self.unique, self.update)
        self.rows += len(self._pending)
        self._pending = []

    def _column(self, name: str) -> str:
        return connection.ops.quote_name(self.model._meta.get_field(name).column)

    def _copy(self, rows: Sequence[Sequence]) -> None:
        quote = connection.ops.quote_name
        names = ", ".join(self._column(c) for c in self.columns)
        with connection.cursor() as cursor:
            if self._stage is None:
                self._stage = stage_name(self.model._meta.db_table)
                table = quote(self.model._meta.db_table)
                cursor.execute(f"DROP TABLE IF EXISTS {self._stage}")
                # ON COMMIT DROP: a failed import leaves no stage behind in the session.
                cursor.execute(
                    f"CREATE TEMP TABLE {self._stage} ON COMMIT DROP AS "
                    f"SELECT {names} FROM {table} WITH NO DATA"
                )
            with cursor.cursor.copy(f"COPY {self._stage} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)

    def _merge_stage(self) -> None:
        quote = connection.ops.quote_name
        table = quote(self.model._meta.db_table)
        names = [self._column(c) for c in self.columns]
        keys = [self._column(c) for c in self.unique]
        changed = [self._column(c) for c in self.update]
        extra_columns, extra_values = column_defaults(self.model, set(self.columns))
        placeholders = "".join(", %s" for _ in extra_values)
        insert = (
            f"INSERT INTO {table} AS t ({', '.join(names + [quote(c) for c in extra_columns])}) "
            f"SELECT {', '.join(f's.{n}' for n in names)}{placeholders} FROM {self._stage} s"
        )
        # Parents of every staged row: a superset of what the merge writes.
        parents = {
            f.attname: (f"SELECT {quote(f.column)} FROM {self._stage}", [])
            for f in self.model._meta.concrete_fields
            if isinstance(f, models.ForeignKey) and f.attname in self.columns
        }
        if not holds_any(table, f"{keys[0]} = ANY(%s)", [list(self._scope)]):
            with (
                set_based_reference_checks(self.model, self.columns, parents),
                connection.cursor() as cursor,
            ):
                cursor.execute(insert, extra_values)
        else:
            same_key = " AND ".join(f"t.{k} = s.{k}" for k in keys)
            same = "".join(f" AND t.{c} IS NOT DISTINCT FROM s.{c}" for c in changed)
            # Stage rows that differ from what is stored (new keys or changed values).
            differ = f" WHERE NOT EXISTS (SELECT 1 FROM {table} t WHERE {same_key}{same})"
            action = (
                "UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in changed)
                if changed
                else "NOTHING"
            )
            # Statistics for the anti-join's plan; the plain insert needs none.
            with connection.cursor() as cursor:
                cursor.execute(f"ANALYZE {self._stage}")
            if count_rows(f"FROM {self._stage} s{differ}", []):
                with (
                    set_based_reference_checks(self.model, self.columns, parents),
                    connection.cursor() as cursor,
                ):
                    cursor.execute(
                        f"{insert}{differ} ON CONFLICT ({', '.join(keys)}) DO {action}",
                        extra_values,
                    )
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE {self._stage}")
        self._stage = None
        self._scope = set()
