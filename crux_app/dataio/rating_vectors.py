"""One judge's rating vectors (one rating per sub-question of a topic) written in one merge.

A release's judgements line rates one item against every sub-question of its topic. On
PostgreSQL each line becomes one COPY row holding two arrays (sub-question pks, ratings), and
one statement unnests them into judgments: Python writes one row per line instead of one per
rating, and builds no model instance. As in ``staged_upsert``: when the judge has no judgment
of these sub-questions yet, a plain ``INSERT ... SELECT``; otherwise ``INSERT ... SELECT ...
ON CONFLICT`` over the ratings that differ from the stored ones (same rating and no rationale
count as equal), so an identical re-import rewrites and locks nothing. Other databases write
each chunk through ``upsert_judgments``, as before.
"""

from collections.abc import Sequence

from django.db import connection

from crux_app.models import Judge, Judgment

from .label_store import JudgmentRow, upsert_judgments
from .pg_copy import column_defaults
from .reference_checks import set_based_reference_checks
from .staged_upsert import CHUNK, count_rows, holds_any, stage_name, uses_copy

_GIVEN = ["judge_id", "topic_id", "subquestion_id", "task", "rating", "rationale"]


class RatingVectors:
    """Judgments of ``judge`` on passages (``item="passage"``) or outputs, added per line."""

    def __init__(self, judge: Judge, item: str, task: str) -> None:
        if item not in ("passage", "output"):
            raise ValueError(f"item must be 'passage' or 'output', got {item!r}")
        self.judge, self.item, self.task = judge, item, task
        self.copy = uses_copy()
        self.judgments = 0
        self._pending: list[tuple[int, int, Sequence[int], Sequence[int]]] = []
        self._stage: str | None = None
        self._subquestions: set[int] = set()  # scopes the "nothing stored yet" check

    def add(
        self, topic_id: int, item_id: int, subquestion_ids: Sequence[int], ratings: Sequence[int]
    ) -> None:
        """The item's ratings, in the order of ``subquestion_ids`` (same length)."""
        self._pending.append((topic_id, item_id, subquestion_ids, ratings))
        self.judgments += len(ratings)
        if len(self._pending) >= CHUNK:
            self._flush()

    def merge(self) -> int:
        """Write every added rating; returns how many judgments were added."""
        self._flush()
        if self._stage is not None:
            self._merge_stage()
        return self.judgments

    def _flush(self) -> None:
        if not self._pending:
            return
        if self.copy:
            for _, _, sq_ids, _ in self._pending:
                self._subquestions.update(sq_ids)
            self._copy()
        else:
            rows = [
                JudgmentRow(topic_id, sq_id, item_id, self.task, rating)
                for topic_id, item_id, sq_ids, ratings in self._pending
                for sq_id, rating in zip(sq_ids, ratings, strict=True)
            ]
            upsert_judgments(self.judge, rows, self.item)
        self._pending = []

    def _copy(self) -> None:
        with connection.cursor() as cursor:
            if self._stage is None:
                self._stage = stage_name(f"judgment_{self.item}")
                cursor.execute(f"DROP TABLE IF EXISTS {self._stage}")
                cursor.execute(
                    f"CREATE TEMP TABLE {self._stage} (topic_id bigint, item_id bigint, "
                    "subquestion_ids bigint[], ratings smallint[]) ON COMMIT DROP"
                )
            # Integers only: the text lines are built here, which costs a fraction of psycopg
            # adapting each list element by element.
            lines = [
                f"{topic_id}\t{item_id}\t{{{','.join(map(str, sq_ids))}}}\t"
                f"{{{','.join(map(str, ratings))}}}\n"
                for topic_id, item_id, sq_ids, ratings in self._pending
            ]
            with cursor.cursor.copy(
                f"COPY {self._stage} (topic_id, item_id, subquestion_ids, ratings) FROM STDIN"
            ) as copy:
                copy.write("".join(lines))

    def _merge_stage(self) -> None:
        quote = connection.ops.quote_name
        table = quote(Judgment._meta.db_table)
        item = quote(Judgment._meta.get_field(self.item).column)
        given = [*_GIVEN, Judgment._meta.get_field(self.item).attname]
        extra_columns, extra_values = column_defaults(Judgment, set(given))
        columns = ", ".join(
            [quote(Judgment._meta.get_field(name).column) for name in given]
            + [quote(c) for c in extra_columns]
        )
        placeholders = "".join(", %s" for _ in extra_values)
        unnested = (
            f"FROM {self._stage} s CROSS JOIN LATERAL unnest(s.subquestion_ids, s.ratings) "
            "AS u(subquestion_id, rating)"
        )
        insert = (
            f"INSERT INTO {table} AS t ({columns}) "
            f"SELECT %s, s.topic_id, u.subquestion_id, %s, u.rating, '', s.item_id"
            f"{placeholders} {unnested}"
        )
        judge = [self.judge.pk]
        insert_params = [self.judge.pk, self.task, *extra_values]
        # Parents of every staged row: a superset of what the merge writes, read without
        # repeating its anti-join.
        parents = {
            "judge_id": ("SELECT %s::bigint", judge),
            "topic_id": (f"SELECT topic_id FROM {self._stage}", []),
            # Distinct arrays first: a topic's lines repeat its sub-question list.
            "subquestion_id": (
                f"SELECT unnest(a.ids) FROM (SELECT DISTINCT subquestion_ids AS ids "
                f"FROM {self._stage}) a",
                [],
            ),
            given[-1]: (f"SELECT item_id FROM {self._stage}", []),
        }
        # The unique index of this item kind leads with (judge, sub-question).
        stored = holds_any(
            table,
            f"judge_id = %s AND subquestion_id = ANY(%s) AND {item} IS NOT NULL",
            [self.judge.pk, list(self._subquestions)],
        )
        if not stored:
            with (
                set_based_reference_checks(Judgment, given, parents),
                connection.cursor() as cursor,
            ):
                cursor.execute(insert, insert_params)
        else:
            # Ratings that differ from what the judge has stored (new items or changed ratings).
            differ = (
                f" WHERE NOT EXISTS (SELECT 1 FROM {table} j WHERE j.judge_id = %s "
                f"AND j.subquestion_id = u.subquestion_id AND j.{item} = s.item_id "
                "AND j.rating IS NOT DISTINCT FROM u.rating AND j.rationale = '')"
            )
            # Statistics for the anti-join's plan; the plain insert needs none.
            with connection.cursor() as cursor:
                cursor.execute(f"ANALYZE {self._stage}")
            if count_rows(f"{unnested}{differ}", judge):
                with (
                    set_based_reference_checks(Judgment, given, parents),
                    connection.cursor() as cursor,
                ):
                    # The conflict target names the partial unique index of this item kind.
                    cursor.execute(
                        f"{insert}{differ} "
                        f"ON CONFLICT (judge_id, subquestion_id, {item}) WHERE {item} IS NOT NULL "
                        "DO UPDATE SET task = EXCLUDED.task, rating = EXCLUDED.rating, "
                        "rationale = EXCLUDED.rationale, updated_at = EXCLUDED.updated_at",
                        [*insert_params, *judge],
                    )
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE {self._stage}")
        self._stage = None
        self._subquestions = set()
