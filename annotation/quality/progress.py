"""What the campaign page shows: progress per annotator and per item, QC, time per item."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from annotation.models import Assignment, Campaign, CampaignItem
from annotation.quality.checks import (
    QualityStatus,
    campaign_quality,
    is_speeding,
    speeding_floor_ms,
)

ITEM_FILTERS = ("all", "incomplete", "complete", "controls")
ITEMS_PER_PAGE = 50


def overlap_warning(overlap: int, annotators: int, prolific: bool = False) -> str:
    """A warning when ``overlap`` labels per item need more annotators than ``annotators``
    (the campaign page's, and the new-campaign preview's)."""
    if overlap <= annotators:
        return ""
    people = f"{annotators} annotator{'' if annotators == 1 else 's'}"
    text = (
        f"Overlap {overlap} asks for {overlap} labels per item, but {people} "
        f"{'is' if annotators == 1 else 'are'} invited: no item can get more than "
        f"{annotators} label{'' if annotators == 1 else 's'} until more annotators join."
    )
    if prolific:
        text += " Prolific participants are invited as they arrive."
    return text


def _median(values: list[int]) -> float | None:
    return statistics.median(values) if values else None


@dataclass
class AnnotatorRow:
    user_id: int
    username: str
    source: str
    submitted: int = 0
    controls: int = 0
    live: int = 0
    skipped: int = 0
    expired: int = 0
    median_ms: float | None = None
    quality: QualityStatus = field(default_factory=QualityStatus)
    blocked: bool = False
    speeding: bool = False  # median time per item under the task type's floor


@dataclass
class ItemRow:
    item: CampaignItem
    median_ms: float | None
    annotators: list[str]


@dataclass
class CampaignProgress:
    summary: dict[str, int]
    n_controls: int
    median_ms: float | None
    annotators: list[AnnotatorRow]
    flagged: int
    overlap_warning: str = ""
    speeding_floor_ms: int | None = None


def annotator_rows(campaign: Campaign, now: datetime | None = None) -> list[AnnotatorRow]:
    """One row per invited or active annotator: counts, median time, gold and attention QC."""
    now = now or timezone.now()
    rows: dict[int, AnnotatorRow] = {}
    for user in campaign.invited.select_related("annotator_profile").order_by("username"):
        profile = getattr(user, "annotator_profile", None)
        rows[user.pk] = AnnotatorRow(user.pk, user.username, profile.source if profile else "")
    submitted = Q(state=Assignment.State.SUBMITTED)
    counts = (
        Assignment.objects.filter(campaign=campaign)
        .order_by()
        .values("annotator_id", "annotator__username")
        .annotate(
            submitted=Count("pk", filter=submitted & Q(item__is_control=False)),
            controls=Count("pk", filter=submitted & Q(item__is_control=True)),
            live=Count("pk", filter=Q(state=Assignment.State.RESERVED, reserved_until__gte=now)),
            skipped=Count("pk", filter=Q(state=Assignment.State.SKIPPED)),
            expired=Count("pk", filter=Q(state=Assignment.State.EXPIRED)),
        )
    )
    for c in counts:
        row = rows.setdefault(
            c["annotator_id"], AnnotatorRow(c["annotator_id"], c["annotator__username"], "")
        )
        for name in ("submitted", "controls", "live", "skipped", "expired"):
            setattr(row, name, c[name])
    times: dict[int, list[int]] = defaultdict(list)
    timed = Assignment.objects.submitted().filter(campaign=campaign, time_spent_ms__isnull=False)
    for annotator_id, ms in timed.values_list("annotator_id", "time_spent_ms"):
        times[annotator_id].append(ms)
    quality = campaign_quality(campaign)
    block = campaign.qc_action == Campaign.QCAction.BLOCK
    for pk, row in rows.items():
        row.median_ms = _median(times.get(pk, []))
        row.speeding = is_speeding(campaign, row.median_ms, len(times.get(pk, [])))
        row.quality = quality.get(pk, QualityStatus())
        row.blocked = block and row.quality.flagged
    return sorted(rows.values(), key=lambda r: r.username)


def campaign_progress(campaign: Campaign) -> CampaignProgress:
    annotators = annotator_rows(campaign)
    times = Assignment.objects.submitted().filter(campaign=campaign, time_spent_ms__isnull=False)
    return CampaignProgress(
        summary=campaign.items.progress_summary(campaign.overlap),
        n_controls=campaign.items.controls().count(),
        median_ms=_median(list(times.values_list("time_spent_ms", flat=True))),
        annotators=annotators,
        flagged=sum(1 for a in annotators if a.quality.flagged),
        speeding_floor_ms=speeding_floor_ms(campaign.task_type),
        # Invited or already working: the people who can give an item its labels.
        overlap_warning=overlap_warning(
            campaign.overlap, len(annotators), campaign.prolific_enabled
        ),
    )


def item_page(
    campaign: Campaign,
    which: str = "all",
    number: int | str = 1,
    query: str = "",
    size: int = ITEMS_PER_PAGE,
) -> Page:
    """A page of items with their labels, reservations and median time (``ItemRow`` objects);
    ``query`` keeps the items whose topic, passage or output id contains it."""
    items = campaign.items.all()
    if query:
        items = items.filter(
            Q(topic__external_id__icontains=query)
            | Q(passage__external_id__icontains=query)
            | Q(output__external_id__icontains=query)
        )
    if which == "incomplete":
        items = items.regular().filter(annotations_done__lt=campaign.overlap)
    elif which == "complete":
        items = items.regular().filter(annotations_done__gte=campaign.overlap)
    elif which == "controls":
        items = items.controls()
    page = Paginator(items.order_by("id"), size).get_page(number)
    ids = [item.pk for item in page.object_list]
    times: dict[int, list[int]] = defaultdict(list)
    names: dict[int, list[str]] = defaultdict(list)
    done = Assignment.objects.submitted().filter(item_id__in=ids).order_by("submitted_at")
    for item_id, ms, username in done.values_list(
        "item_id", "time_spent_ms", "annotator__username"
    ):
        names[item_id].append(username)
        if ms is not None:
            times[item_id].append(ms)
    page.object_list = [
        ItemRow(item, _median(times.get(item.pk, [])), names.get(item.pk, []))
        for item in page.object_list
    ]
    return page


def annotator_standing(campaign: Campaign, user: Any) -> tuple[int, int | None]:
    """(ordinary items the annotator submitted, id of their latest submission or None)."""
    assignments = Assignment._meta.db_table
    items = CampaignItem._meta.db_table
    # The latest in latest_submitted's order (newest submission first, then the later row).
    sql = f"""
        SELECT COUNT(*) FILTER (WHERE NOT item.is_control),
            (SELECT id FROM {assignments}
             WHERE campaign_id = %s AND annotator_id = %s AND state = %s
             ORDER BY submitted_at DESC, id DESC LIMIT 1)
        FROM {assignments} a JOIN {items} item ON item.id = a.item_id
        WHERE a.campaign_id = %s AND a.annotator_id = %s AND a.state = %s
    """
    mine = [campaign.pk, user.pk, Assignment.State.SUBMITTED]
    with connection.cursor() as cursor:
        cursor.execute(sql, mine + mine)
        n_done, latest = cursor.fetchone()
    return n_done, latest
