"""Merge a passages file into a collection in SQL: texts for text-less passages, new passages.

The file's (line, id, text) rows stream through COPY into a temporary table; then one statement
each finds the first row whose passage already holds another text, counts what the merge will
do, fills the text-less passages and inserts the missing ones. No row becomes a Python object
and no id list travels as query parameters, so a corpus of millions of passages merges at the
database's own speed. Texts are compared without their surrounding whitespace (a TSV's texts
arrive stripped, a JSONL's as given). PostgreSQL only, like every COPY path here.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from crux_app.models import Passage

from .pg_copy import column_defaults

STAGE = "stage_passage_texts"
_SPACE = r"E' \t\n\r\f\v'"  # what btrim() removes: the whitespace str.strip() removes, ASCII


@dataclass(frozen=True)
class MergeCounts:
    created: int
    filled: int
    unchanged: int


class PassageMerge:
    """One merge: ``stage`` the rows, ask ``first_conflict``, then ``apply``."""

    def __init__(self, collection_id: int) -> None:
        self.collection_id = collection_id
        self.table = connection.ops.quote_name(Passage._meta.db_table)

    def stage(self, rows: Iterable[tuple[int, str, str]]) -> int:
        """COPY (line, external id, text) rows into a fresh stage table; returns how many."""
        count = 0
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {STAGE}")
            cursor.execute(
                f"CREATE TEMP TABLE {STAGE} (line integer, external_id text, text text) "
                "ON COMMIT DROP"
            )
            with cursor.cursor.copy(f"COPY {STAGE} (line, external_id, text) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
                    count += 1
            cursor.execute(f"CREATE INDEX ON {STAGE} (external_id)")
            cursor.execute(f"ANALYZE {STAGE}")
        return count

    def _joined(self) -> str:
        return (
            f"FROM {STAGE} s JOIN {self.table} p "
            "ON p.collection_id = %s AND p.external_id = s.external_id"
        )

    def first_conflict(self) -> tuple[int, str] | None:
        """(line, id) of the first row whose passage holds another text; None when none."""
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT s.line, s.external_id {self._joined()} WHERE p.has_text "
                f"AND btrim(p.text, {_SPACE}) <> btrim(s.text, {_SPACE}) ORDER BY s.line LIMIT 1",
                [self.collection_id],
            )
            return cursor.fetchone()

    def apply(self, staged: int) -> MergeCounts:
        """Fill the text-less passages, insert the new ones; call after ``first_conflict``."""
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FILTER (WHERE p.has_text), "
                f"count(*) FILTER (WHERE NOT p.has_text) {self._joined()}",
                [self.collection_id],
            )
            unchanged, filled = cursor.fetchone()
            cursor.execute(
                f"UPDATE {self.table} AS p SET text = s.text, has_text = true, "
                f"token_count = NULL, token_count_tokenizer = '' FROM {STAGE} s "
                "WHERE p.collection_id = %s AND p.external_id = s.external_id AND NOT p.has_text",
                [self.collection_id],
            )
            self._insert_new(cursor)
            cursor.execute(f"DROP TABLE {STAGE}")
        return MergeCounts(staged - unchanged - filled, filled, unchanged)

    def _insert_new(self, cursor) -> None:
        given = ["collection_id", "external_id", "text", "has_text"]
        extra_columns, extra_values = column_defaults(Passage, set(given))
        quote = connection.ops.quote_name
        columns = ", ".join(quote(Passage._meta.get_field(name).column) for name in given)
        extra = "".join(f", {quote(column)}" for column in extra_columns)
        placeholders = "".join(", %s" for _ in extra_values)
        cursor.execute(
            f"INSERT INTO {self.table} ({columns}{extra}) "
            f"SELECT %s, s.external_id, s.text, true{placeholders} FROM {STAGE} s "
            f"WHERE NOT EXISTS (SELECT 1 FROM {self.table} p "
            "WHERE p.collection_id = %s AND p.external_id = s.external_id) ORDER BY s.line",
            [self.collection_id, *extra_values, self.collection_id],
        )
