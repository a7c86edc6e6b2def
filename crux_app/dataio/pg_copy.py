"""Write many rows through PostgreSQL's COPY, skipping model instances altogether.

Building a model instance and compiling an INSERT per row costs more than the database's own
work once imports reach millions of rows; COPY streams plain tuples instead (straight into the
table for new rows, or into a temporary stage table that one ``INSERT ... ON CONFLICT``
merges). Rows are given by attname in database form. Columns the caller leaves out get the
field's default (auto_now/auto_now_add: the current time), so a field added to a model later
keeps working. Other databases fall back to ``bulk_create``.
"""

from collections.abc import Iterable, Sequence

from django.db import connection, models
from django.utils import timezone

FALLBACK_BATCH = 2000


def _defaults(model: type[models.Model], given: set[str]) -> tuple[list[str], list]:
    """Columns the caller does not give, with their default values in database form."""
    now = timezone.now()
    columns, values = [], []
    for field in model._meta.concrete_fields:
        if field.primary_key or field.attname in given:
            continue
        auto_time = getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        columns.append(field.column)
        values.append(field.get_db_prep_save(now if auto_time else field.get_default(), connection))
    return columns, values


def column_defaults(model: type[models.Model], given: set[str]) -> tuple[list[str], list]:
    """For SQL that inserts rows itself: the columns (unquoted) that ``given`` attnames leave
    out, with their default values in database form."""
    return _defaults(model, given)


def _column(model: type[models.Model], name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


def insert_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Insert new ``rows`` (values for ``columns``); returns how many."""
    extra_columns, extra_values = _defaults(model, set(columns))
    if connection.vendor != "postgresql":
        objects = [model(**dict(zip(columns, row, strict=True))) for row in rows]
        model.objects.bulk_create(objects, batch_size=FALLBACK_BATCH)
        return len(objects)
    names = [_column(model, c) for c in columns] + [
        connection.ops.quote_name(c) for c in extra_columns
    ]
    table = connection.ops.quote_name(model._meta.db_table)
    count = 0
    extra = tuple(extra_values)
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({', '.join(names)}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row((*row, *extra))
            count += 1
    return count


def upsert_rows(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Sequence[Sequence],
    unique: Sequence[str],
    update: Sequence[str],
) -> dict[tuple, int]:
    """Insert ``rows`` or update ``update`` columns of the row with the same ``unique`` key.

    ``unique`` must name a full unique constraint and appear in ``columns``; each key must
    occur once in ``rows``. Unchanged rows are not rewritten. Returns key -> pk for all rows.
    """
    key_at = [columns.index(u) for u in unique]
    if not rows:
        return {}
    if connection.vendor != "postgresql":
        objects = [model(**dict(zip(columns, row, strict=True))) for row in rows]
        fields = [model._meta.get_field(c).name for c in (*unique, *update)]
        model.objects.bulk_create(
            objects,
            update_conflicts=True,
            unique_fields=fields[: len(unique)],
            update_fields=fields[len(unique) :],
            batch_size=FALLBACK_BATCH,
        )
        # Not every backend reports pks of upserted rows; read them back by the first key.
        stored = model.objects.filter(**{f"{unique[0]}__in": {row[key_at[0]] for row in rows}})
        ids = {tuple(found[:-1]): found[-1] for found in stored.values_list(*unique, "pk")}
        return {tuple(row[i] for i in key_at): ids[tuple(row[i] for i in key_at)] for row in rows}
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    stage = quote(f"stage_{model._meta.db_table}")
    names = [_column(model, c) for c in columns]
    keys = [_column(model, u) for u in unique]
    changed = [_column(model, u) for u in update]
    extra_columns, extra_values = _defaults(model, set(columns))
    assignments = ", ".join(f"{c} = EXCLUDED.{c}" for c in changed)
    old = ", ".join(f"{table}.{c}" for c in changed)
    new = ", ".join(f"EXCLUDED.{c}" for c in changed)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {stage}")
        cursor.execute(
            f"CREATE TEMP TABLE {stage} AS SELECT {', '.join(names)} FROM {table} WITH NO DATA"
        )
        with cursor.cursor.copy(f"COPY {stage} ({', '.join(names)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        placeholders = "".join(", %s" for _ in extra_values)
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(names + [quote(c) for c in extra_columns])}) "
            f"SELECT {', '.join(names)}{placeholders} FROM {stage} "
            f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {assignments} "
            f"WHERE ROW({old}) IS DISTINCT FROM ROW({new})",
            extra_values,
        )
        join = " AND ".join(f"t.{k} = s.{k}" for k in keys)
        cursor.execute(
            f"SELECT {', '.join(f's.{k}' for k in keys)}, t.id FROM {stage} s "
            f"JOIN {table} t ON {join}"
        )
        ids = {tuple(found[:-1]): found[-1] for found in cursor.fetchall()}
        cursor.execute(f"DROP TABLE {stage}")
    return {tuple(row[i] for i in key_at): ids[tuple(row[i] for i in key_at)] for row in rows}


def rows_by_key(
    model: type[models.Model],
    columns: Sequence[str],
    key: str,
    values: Sequence,
    **equal: object,
) -> list[tuple]:
    """``columns`` (attnames) of the rows whose ``key`` is one of ``values`` and whose ``equal``
    columns hold the given values. PostgreSQL gets one array parameter: thousands of ``IN``
    placeholders cost more to build and parse than the lookup itself."""
    if not values:
        return []
    if connection.vendor != "postgresql":
        rows = model.objects.filter(**{f"{key}__in": list(values)}, **equal)
        return list(rows.values_list(*columns))
    table = connection.ops.quote_name(model._meta.db_table)
    conditions = [f"{_column(model, key)} = ANY(%s)"] + [f"{_column(model, c)} = %s" for c in equal]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(_column(model, c) for c in columns)} FROM {table} "
            f"WHERE {' AND '.join(conditions)}",
            [list(values), *equal.values()],
        )
        return cursor.fetchall()
