"""The queue's two hot statements: picking the next item over all the pools at once, and
inserting a new reservation together with its item's count.

Why: a queue request used to cost a round trip per pool (two when a pool was empty: the
``SKIP LOCKED`` pick, then the look for rows other requests hold) and three for a new
reservation (look for the annotator's earlier row, check it, insert, count). On a loaded
server every round trip waits for the database process to be scheduled, so the request's
latency grew with their number, not with the work. Both statements here keep the decisions
of ``annotation.queue.queue`` unchanged; they only make them in fewer trips.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import QuerySet

from annotation.models import Assignment, Campaign, CampaignItem


@dataclass(frozen=True)
class Candidate:
    """The first pool (by index) that has an item, and what it offers.

    ``item`` is that pool's first item no concurrent request holds, locked by this
    transaction; None when every item of the pool is held by concurrent requests (``held``).
    """

    pool: int
    item: CampaignItem | None

    @property
    def held(self) -> bool:
        return self.item is None


def first_candidate(pools: Sequence[QuerySet], tried: Collection[int]) -> Candidate | None:
    """In one statement, the first of ``pools`` (ordered item querysets) with items left
    (``tried`` ones excluded): its first free item, locked ``FOR UPDATE SKIP LOCKED``, or the
    news that all of them are held; None when every pool is empty.

    Each pool gives two arms, its free item (locked) and then any of its items (unlocked,
    read only when the free arm found nothing); a ``UNION ALL`` of the arms under ``LIMIT 1``
    runs them in order and stops at the first row, so later pools are neither read nor locked.
    A query that locks rows is never run in parallel, which keeps that order.
    """
    arms, params = [], []
    lock = f" FOR UPDATE OF {connection.ops.quote_name(CampaignItem._meta.db_table)} SKIP LOCKED"
    for n, pool in enumerate(pools):
        if tried:
            pool = pool.exclude(pk__in=list(tried))
        # Compiled once (the ORM's compile is most of this function's time): the free arm is
        # the same SELECT ... LIMIT 1 with the locking clause that select_for_update would add.
        sql, pool_params = pool[:1].query.sql_with_params()
        for held, arm in ((False, sql + lock), (True, sql)):
            arms.append(f"(SELECT a.*, {n} AS pool_no, {held} AS pool_held FROM ({arm}) a)")
            params.extend(pool_params)
    if not arms:
        return None
    rows = list(
        CampaignItem.objects.raw(f"SELECT * FROM ({' UNION ALL '.join(arms)}) u LIMIT 1", params)
    )
    if not rows:
        return None
    row = rows[0]
    return Candidate(row.pool_no, None if row.pool_held else row)


def insert_reservation(
    campaign: Campaign,
    item: CampaignItem,
    user: AbstractBaseUser,
    now: datetime,
    until: datetime,
) -> Assignment | None:
    """A new reservation of the locked ``item`` for ``user``, counted on the item, in one
    statement; None (nothing written) when the annotator already has a row for the item,
    which the caller then reuses or refuses as before."""
    assignments = Assignment._meta.db_table
    items = CampaignItem._meta.db_table
    sql = f"""
        WITH new AS (
            INSERT INTO {assignments}
                (campaign_id, item_id, annotator_id, state, reserved_at, reserved_until, draft)
            VALUES (%s, %s, %s, %s, %s, %s, '{{}}'::jsonb)
            ON CONFLICT (item_id, annotator_id) DO NOTHING
            RETURNING id
        ), counted AS (
            UPDATE {items} SET reserved_count = reserved_count + 1
            WHERE id = %s AND EXISTS (SELECT 1 FROM new)
        )
        SELECT id FROM new
    """
    state = Assignment.State.RESERVED
    with connection.cursor() as cursor:
        cursor.execute(sql, [campaign.pk, item.pk, user.pk, state, now, until, item.pk])
        row = cursor.fetchone()
    if row is None:
        return None
    assignment = Assignment(
        pk=row[0],
        campaign=campaign,
        item=item,
        annotator=user,
        state=state,
        reserved_at=now,
        reserved_until=until,
        draft={},
    )
    assignment._state.adding = False  # a stored row: a later save() updates it
    assignment._state.db = connection.alias
    return assignment
