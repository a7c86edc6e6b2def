"""Reservations of the work queue (``annotation/queue/queue.py``): reserving a locked item,
releasing expired reservations, skipping, and serialising one annotator's requests."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.accounts import ensure_profile
from annotation.models import AnnotatorProfile, Assignment, Campaign, CampaignItem
from annotation.queue.candidates import insert_reservation

RELEASE_BATCH = 500


def release_expired(campaign_id: int, now: datetime | None = None) -> int:
    """Mark the campaign's expired reservations expired and give their items' slots back."""
    now = now or timezone.now()
    expired = Assignment.objects.filter(
        campaign_id=campaign_id, state=Assignment.State.RESERVED, reserved_until__lt=now
    )
    # Nearly always nothing has expired: one probe of the partial index, no transaction.
    if not expired.exists():
        return 0
    with transaction.atomic():
        rows = list(
            Assignment.objects.select_for_update(skip_locked=True)
            .filter(
                campaign_id=campaign_id,
                state=Assignment.State.RESERVED,
                reserved_until__lt=now,
            )
            .order_by("item_id")
            .values_list("id", "item_id")[:RELEASE_BATCH]
        )
        if not rows:
            return 0
        Assignment.objects.filter(id__in=[pk for pk, _ in rows]).update(
            state=Assignment.State.EXPIRED
        )
        # Items in id order: two releasers never wait on each other's items in a cycle.
        per_item = Counter(item_id for _, item_id in rows)
        for item_id in sorted(per_item):
            CampaignItem.objects.filter(pk=item_id).update(
                reserved_count=F("reserved_count") - per_item[item_id]
            )
    return len(rows)


def lock_annotator(user: AbstractBaseUser) -> None:
    """Lock the annotator's profile row (created on their first request) until the commit.

    The same statement lets this transaction commit without waiting for the WAL flush
    (``synchronous_commit`` off, for this transaction only, when it is not nested in a
    caller's): it writes only a reservation, which a database crash may lose without harm
    (the item simply is not reserved), never an answer. It saves a disk flush per request.
    """
    table = AnnotatorProfile._meta.db_table
    lock = f"SELECT id FROM {table} WHERE user_id = %s FOR UPDATE"
    own_transaction = len(connection.atomic_blocks) == 1
    with connection.cursor() as cursor:
        if own_transaction:
            cursor.execute(f"SET LOCAL synchronous_commit TO off; {lock}", [user.pk])
            cursor.nextset()
        else:
            cursor.execute(lock, [user.pk])
        found = cursor.fetchone()
    if found is None:
        ensure_profile(user)
        AnnotatorProfile.objects.select_for_update().filter(user=user).first()


def reserve(
    item: CampaignItem, campaign: Campaign, user: AbstractBaseUser, now: datetime
) -> Assignment | None:
    """Reserve a locked item for the annotator, reusing their earlier (expired/skipped) row."""
    until = now + timedelta(seconds=campaign.reservation_seconds)
    # Mostly the annotator never had this item: insert and count it in one statement.
    assignment = insert_reservation(campaign, item, user, now, until)
    if assignment is not None:
        return assignment
    rows = Assignment.objects.filter(item=item, annotator=user)
    existing = rows.select_for_update(skip_locked=True).first()
    if existing is None:
        if rows.exists():
            return None  # their own late submit holds the row right now
        assignment = Assignment.objects.create(
            campaign=campaign,
            item=item,
            annotator=user,
            state=Assignment.State.RESERVED,
            reserved_at=now,
            reserved_until=until,
        )
    elif existing.state in (Assignment.State.EXPIRED, Assignment.State.SKIPPED):
        existing.state = Assignment.State.RESERVED
        existing.reserved_at = now
        existing.reserved_until = until
        existing.save(update_fields=["state", "reserved_at", "reserved_until"])
        assignment = existing
    else:
        return None
    CampaignItem.objects.filter(pk=item.pk).update(reserved_count=F("reserved_count") + 1)
    assignment.item = item
    return assignment


def release_all(campaign: Campaign, user: AbstractBaseUser) -> None:
    held = list(
        Assignment.objects.select_for_update()
        .filter(campaign=campaign, annotator=user, state=Assignment.State.RESERVED)
        .order_by("item_id")
    )
    for assignment in held:
        _release(assignment, Assignment.State.EXPIRED)


def _release(assignment: Assignment, state: str, now: datetime | None = None) -> None:
    assignment.state = state
    fields = ["state"]
    if state == Assignment.State.SKIPPED:
        assignment.skipped_at = now or timezone.now()
        fields.append("skipped_at")
    assignment.save(update_fields=fields)
    CampaignItem.objects.filter(pk=assignment.item_id).update(
        reserved_count=F("reserved_count") - 1
    )


def skip(assignment: Assignment, now: datetime | None = None) -> bool:
    """Give the item back; True if it was reserved (a repeated skip changes nothing)."""
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.state != Assignment.State.RESERVED:
            return False
        _release(locked, Assignment.State.SKIPPED, now)
    return True
