"""The work queue: which item an annotator gets next, reservations and skips (an unfinished
answer is kept by ``annotation.workspace.drafts``).

Rules:

- An annotator gets an item of an open campaign whose submitted labels plus live reservations
  (its ``load``) are below the campaign's overlap, that they have not submitted, skipped or
  reserved. Which one comes first is the campaign's assignment policy:

  * "complete overlap first" (the default, for agreement): an item others have labelled that
    still needs labels, most labelled first (then least loaded, then oldest), before any
    untouched item; so two annotators' labels meet on the same items from the start;
  * "cover every item once first": least loaded first (then oldest), so every item gets its
    first label before any gets a second.

  With overlap 1 both are the same. The candidate row is taken with
  ``SELECT ... FOR UPDATE SKIP LOCKED`` inside the transaction that reserves it, and the load
  condition is re-checked on the locked row, so concurrent requests never hand out more than
  the overlap. One annotator's requests are serialised on their profile row, so a double click
  never reserves twice. The pools are tried in one statement (``annotation.queue.candidates``); a
  reservation's transaction does not wait for the disk flush of its commit (it holds no
  answer: a database crash can lose only the reservation itself).
- A reservation lasts ``reservation_seconds``; saving a draft extends it. Expired reservations
  are released lazily, by the next queue request of anyone in the campaign, so no background
  process is needed. An expired item may come back to the same annotator, with their draft.
- An annotator holds at most two live reservations: the item on screen and the prefetched
  next one. Coming back resumes the oldest live reservation, with its draft.
- Skip releases the reservation at once, so the item goes back to the others. The skipped item
  is offered to the same annotator again only when nothing else is left for them (oldest skip
  first, and never as a prefetch), so a skip means "later", never "lost".
- Gold items and attention checks (control items) are not limited by the overlap: every
  annotator gets each of them once, one after every ``control_interval`` ordinary items. The
  per-annotator cap counts ordinary items only.
- With QC action "block", an annotator whose gold accuracy or attention-check results fall
  below the thresholds gets nothing more and their reservations are released.
- An answer to an item whose reservation has expired is still stored (see
  ``annotation/workspace/submission.py``): nothing submitted is lost, at the price of an
  occasional overlap + 1 labels on an item.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.postgres.aggregates import ArrayAgg
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from annotation.crowd import control as crowd_control
from annotation.models import Assignment, Campaign, CampaignItem
from annotation.quality.checks import annotator_quality
from annotation.queue.candidates import first_candidate
from annotation.queue.reservations import lock_annotator, release_all, release_expired, reserve

CANDIDATE_TRIES = 3

ITEM = "item"
PAUSED = "paused"
CLOSED = "closed"
BLOCKED = "blocked"
CAP_REACHED = "cap"
EXHAUSTED = "exhausted"
STOPPED = "stopped"  # a failed qualification test or a skill under the floor (crowd_control)


@dataclass(frozen=True)
class NextItem:
    """The assignment to show, or the reason there is none."""

    assignment: Assignment | None
    reason: str

    @property
    def finished(self) -> bool:
        """No more items for this annotator unless something is released or reopened."""
        return self.reason in {BLOCKED, CAP_REACHED, EXHAUSTED, CLOSED, STOPPED}


def next_item(
    campaign: Campaign,
    user: AbstractBaseUser,
    *,
    after: int | None = None,
    now: datetime | None = None,
) -> NextItem:
    """The annotator's item: their live reservation, or a newly reserved one.

    With ``after`` (the assignment on screen) it is the prefetch: a live reservation other
    than that one, or a new one.
    """
    now = now or timezone.now()
    if campaign.state == Campaign.State.PAUSED:
        return NextItem(None, PAUSED)
    if campaign.state == Campaign.State.CLOSED:
        return NextItem(None, CLOSED)
    release_expired(campaign.pk, now)
    with transaction.atomic():
        # Serialise this annotator's queue requests (double clicks, two tabs).
        lock_annotator(user)
        if (
            campaign.qc_action == Campaign.QCAction.BLOCK
            and annotator_quality(campaign, user).flagged
        ):
            release_all(campaign, user)
            return NextItem(None, BLOCKED)
        if crowd_control.stopped(campaign, user) or crowd_control.check_qualification(
            campaign, user
        ):
            release_all(campaign, user)
            return NextItem(None, STOPPED)
        mine = _my_assignments(campaign, user, now)
        others = [pk for pk in mine["live"] if pk != after]
        if others:
            return NextItem(_with_item(others[0]), ITEM)
        if after is None and mine["live"]:
            return NextItem(_with_item(mine["live"][0]), ITEM)
        cap = campaign.per_annotator_cap
        if cap is not None and mine["regular_done"] + mine["regular_live"] >= cap:
            return NextItem(None, CAP_REACHED)
        if crowd_control.check_skill_floor(campaign, user):
            release_all(campaign, user)
            return NextItem(None, STOPPED)
        # A prefetch never takes a skipped item back: that happens only when the annotator
        # has truly run out, so a skip leaves the item to the others meanwhile.
        assignment = _reserve_next(campaign, user, mine, now, retake_skipped=after is None)
        return NextItem(assignment, ITEM if assignment else EXHAUSTED)


def _my_assignments(campaign: Campaign, user: AbstractBaseUser, now: datetime) -> dict[str, Any]:
    """The annotator's live reservations (ids, oldest first) and their counts, in one query."""
    live = Q(state=Assignment.State.RESERVED, reserved_until__gte=now)
    submitted = Q(state=Assignment.State.SUBMITTED)
    mine = Assignment.objects.filter(campaign=campaign, annotator=user).aggregate(
        live=ArrayAgg("pk", filter=live, order_by=("reserved_at", "id")),
        regular_done=Count("pk", filter=submitted & Q(item__is_control=False)),
        regular_live=Count("pk", filter=live & Q(item__is_control=False)),
        controls_taken=Count(
            "pk", filter=Q(item__is_control=True) & ~Q(state=Assignment.State.EXPIRED)
        ),
    )
    mine["live"] = mine["live"] or []
    return mine


def _with_item(pk: int) -> Assignment:
    return Assignment.objects.select_related("item").get(pk=pk)


def _held_by(user: AbstractBaseUser) -> Exists:
    """Items this annotator holds an assignment for (an expired one does not count)."""
    return Exists(
        Assignment.objects.filter(item=OuterRef("pk"), annotator=user).exclude(
            state=Assignment.State.EXPIRED
        )
    )


def _reserve_next(
    campaign: Campaign,
    user: AbstractBaseUser,
    counts: dict[str, int],
    now: datetime,
    retake_skipped: bool = True,
) -> Assignment | None:
    items = CampaignItem.objects.filter(campaign=campaign).exclude(_held_by(user))
    control_due = counts["regular_done"] >= (counts["controls_taken"] + 1) * (
        campaign.control_interval
    )
    pools = []
    if crowd_control.qualification_pending(campaign, user):
        # The qualification test first: gold items only until it is done.
        return _take_first([items.filter(is_gold=True).order_by("id")], campaign, user, now)
    if control_due:
        # Same order as the index (campaign, is_control, load, id): an indexed scan.
        pools.append(items.filter(is_control=True).order_by("load", "id"))
    pools += regular_pools(campaign, items)
    assignment = _take_first(pools, campaign, user, now)
    if assignment:
        return assignment
    return _retake_skipped(campaign, user, now) if retake_skipped else None


def regular_pools(campaign: Campaign, items: Any) -> list[Any]:
    """The ordinary items an annotator may get, as querysets tried in turn (see the policies
    in the module docstring); ``items`` are the campaign's items not held by the annotator."""
    open_items = items.filter(is_control=False, load__lt=campaign.overlap)
    least_loaded = open_items.order_by("load", "id")  # the index item_queue_idx
    if campaign.until_confident:
        uncertain = crowd_control.uncertain_items(campaign, items)
        return [uncertain, *_overlap_pools(campaign, open_items, least_loaded)]
    return _overlap_pools(campaign, open_items, least_loaded)


def _overlap_pools(campaign: Campaign, open_items: Any, least_loaded: Any) -> list[Any]:
    if (
        campaign.assignment_policy == Campaign.AssignmentPolicy.COVERAGE_FIRST
        or campaign.overlap < 2
    ):
        return [least_loaded]
    # Started, not complete: a range of the index item_overlap_queue_idx, most labelled first.
    started = open_items.filter(
        annotations_done__gte=1, annotations_done__lt=campaign.overlap
    ).order_by("-annotations_done", "load", "id")
    return [started, least_loaded]


def _usable(item: CampaignItem, campaign: Campaign) -> bool:
    # Re-checked on the locked row: the item may have filled up since the scan began.
    return item.is_control or item.load < crowd_control.item_limit(item, campaign)


def _take_first(
    pools: list[Any], campaign: Campaign, user: AbstractBaseUser, now: datetime
) -> Assignment | None:
    """Reserve the first free item of the first pool that has one, skipping rows others hold.

    Per pool: up to CANDIDATE_TRIES free items; when none is left (or none could be
    reserved) but the pool still has items held by concurrent requests, wait for those
    rather than wrongly report "nothing left"; then the next pool. ``first_candidate`` finds
    the pool and its item in one statement.
    """
    tried: list[int] = []
    start, tries = 0, 0
    while start < len(pools):
        candidate = first_candidate(pools[start:], tried)
        if candidate is None:
            return None  # every pool left is empty
        pool = start + candidate.pool
        if pool != start:
            start, tries = pool, 0
        item = candidate.item
        if item is not None:
            if _usable(item, campaign) and (assignment := reserve(item, campaign, user, now)):
                return assignment
            tried.append(item.pk)
            tries += 1
            if tries < CANDIDATE_TRIES:
                continue
        assignment = _wait_for_held(pools[pool], tried, campaign, user, now)
        if assignment:
            return assignment
        start, tries = pool + 1, 0
    return None


def _wait_for_held(
    pool: Any, tried: list[int], campaign: Campaign, user: AbstractBaseUser, now: datetime
) -> Assignment | None:
    """Every candidate left in ``pool`` is held by a concurrent request. Wait for them
    (those transactions are short); rows are waited for in id order, the same order in every
    transaction, so waiters never deadlock."""
    held = sorted(pool.exclude(pk__in=tried).values_list("pk", flat=True)[:CANDIDATE_TRIES])
    for pk in held:
        item = CampaignItem.objects.select_for_update(of=("self",)).filter(pk=pk).first()
        if item and _usable(item, campaign) and (assignment := reserve(item, campaign, user, now)):
            return assignment
    return None


def _retake_skipped(campaign: Campaign, user: AbstractBaseUser, now: datetime) -> Assignment | None:
    """Second pass: the annotator's own skipped items that still need labels, oldest first."""
    skipped = (
        Assignment.objects.filter(campaign=campaign, annotator=user, state=Assignment.State.SKIPPED)
        .filter(Q(item__is_control=True) | Q(item__load__lt=campaign.overlap))
        .order_by("skipped_at", "id")
        .values_list("item_id", flat=True)
    )
    for item_id in skipped[:CANDIDATE_TRIES]:
        item = CampaignItem.objects.select_for_update(skip_locked=True).filter(pk=item_id).first()
        if item is None or (not item.is_control and item.load >= campaign.overlap):
            continue
        assignment = reserve(item, campaign, user, now)
        if assignment:
            return assignment
    return None
