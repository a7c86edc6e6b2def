"""Annotator quality in one place: per annotator of a campaign, labels, median time (speeding
flagged against the task's floor), gold and attention accuracy, agreement with the majority of
the other annotators and with the adjudicated reference of review campaigns, the share of
their reviewed disagreements decided their way, and the trend of majority agreement over their
work. The page, its CSV (with Prolific ids) and the sort order read these rows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from annotation.models import AnnotatorProfile, Assignment, Campaign, ReviewDecision, ReviewItem
from annotation.quality.agreement import Tally, majority_hits, tally, trend
from annotation.quality.checks import speeding_floor_ms
from annotation.quality.progress import AnnotatorRow, annotator_rows
from annotation.task_types.registry import TASK_TYPE_REGISTRY

Unit = tuple[int, Hashable]  # (campaign item id, sub-question position or "")


@dataclass(frozen=True)
class QualityRow:
    base: AnnotatorRow
    prolific_id: str
    majority: Tally
    reference: Tally
    decided_their_way: Tally
    trend: float | None

    def as_record(self, floor: int | None) -> dict[str, Any]:
        b = self.base
        return {
            "annotator": b.username,
            "prolific_id": self.prolific_id,
            "source": b.source,
            "labels": b.submitted,
            "median_time_ms": b.median_ms,
            "speeding_floor_ms": floor,
            "speeding": b.speeding,
            "gold_n": b.quality.gold_n,
            "gold_accuracy": b.quality.gold_accuracy,
            "attention_n": b.quality.attention_n,
            "attention_rate": b.quality.attention_rate,
            "majority_n": self.majority.n,
            "majority_agreement": self.majority.share,
            "reference_n": self.reference.n,
            "reference_agreement": self.reference.share,
            "reviewed_n": self.decided_their_way.n,
            "decided_their_way": self.decided_their_way.share,
            "trend": self.trend,
            "flagged": b.quality.flagged,
        }


COLUMNS = (
    "annotator",
    "prolific_id",
    "source",
    "labels",
    "median_time_ms",
    "speeding_floor_ms",
    "speeding",
    "gold_n",
    "gold_accuracy",
    "attention_n",
    "attention_rate",
    "majority_n",
    "majority_agreement",
    "reference_n",
    "reference_agreement",
    "reviewed_n",
    "decided_their_way",
    "trend",
    "flagged",
)

# The page's column headers; the CSV and the API keep the names of COLUMNS. A column missing
# here is headed by its name in words (column_label), so a new column is never unreadable.
COLUMN_LABELS = {
    "annotator": "Annotator",
    "prolific_id": "Prolific ID",
    "source": "Source",
    "labels": "Labels",
    "median_time_ms": "Median time",
    "speeding_floor_ms": "Speeding floor",
    "speeding": "Speeding",
    "gold_n": "Gold items",
    "gold_accuracy": "Gold accuracy",
    "attention_n": "Attention checks",
    "attention_rate": "Attention passed",
    "majority_n": "Items with a majority",
    "majority_agreement": "Majority agreement",
    "reference_n": "Items with a reference",
    "reference_agreement": "Reference agreement",
    "reviewed_n": "Reviewed disagreements",
    "decided_their_way": "Decided their way",
    "trend": "Trend",
    "flagged": "Flagged",
    # A crowd model's estimates (annotation/crowd/workers.py), beside the other evidence.
    "model_skill": "Model skill",
    "model_confusion": "Model confusion (true → given)",
}


def column_label(column: str) -> str:
    """The page's header of a quality column: its label, else its name in words."""
    words = column.removesuffix("_ms").removesuffix("_n").replace("_", " ")
    return COLUMN_LABELS.get(column) or words.capitalize()


def answer_units(kind: str, payload: dict, answer: dict) -> dict[Hashable, tuple[Any, str]]:
    """An answer as (label, review item key) per unit, as its task type declares it
    (``TaskType.review_unit`` / ``review_units``; the keys are those of
    ``annotation/labels/collection.py``); none for an unknown kind (an attention check)."""
    entry = TASK_TYPE_REGISTRY.get(kind)
    return entry.answer_units(payload, answer) if entry else {}


def campaign_reference(campaign: Campaign) -> dict[str, Any]:
    """Adjudicated labels of the collection's review campaigns of this task, by item key."""
    decisions = ReviewDecision.objects.filter(
        campaign__collection_id=campaign.collection_id, campaign__task_type=campaign.task_type
    ).order_by("decided_at", "id")
    return dict(decisions.values_list("item__key", "label"))


def _reviewed(campaign: Campaign) -> dict[str, Tally]:
    """Per judge name, the reviewed disagreements where a candidate was chosen: decided their
    way or not."""
    items = ReviewItem.objects.filter(
        campaign__collection_id=campaign.collection_id,
        campaign__task_type=campaign.task_type,
        decision__isnull=False,
    ).exclude(decision__option="")
    out: dict[str, Tally] = defaultdict(Tally)
    for labels, decided in items.values_list("labels", "decision__label"):
        for judge, label in labels.items():
            out[judge] = out[judge].add(label == decided)
    return out


def quality_rows(campaign: Campaign) -> list[QualityRow]:
    answers = (
        Assignment.objects.submitted()
        .filter(campaign=campaign, item__is_control=False)
        .order_by("submitted_at", "id")
        .values_list("annotator_id", "item_id", "item__kind", "item__payload", "answer")
    )
    units: dict[Unit, dict[int, Any]] = defaultdict(dict)
    keys: dict[Unit, str] = {}
    order: dict[int, list[Unit]] = defaultdict(list)
    for annotator_id, item_id, kind, payload, answer in answers:
        for part, (label, key) in answer_units(kind, payload or {}, answer or {}).items():
            unit = (item_id, part)
            units[unit][annotator_id] = label
            keys[unit] = key
            order[annotator_id].append(unit)
    hits = majority_hits(units)
    reference = campaign_reference(campaign)
    reviewed = _reviewed(campaign)
    pids = dict(
        AnnotatorProfile.objects.filter(user__in=campaign.invited.all()).values_list(
            "user_id", "prolific_pid"
        )
    )
    rows = []
    for base in annotator_rows(campaign):
        mine = dict(hits.get(base.user_id, []))
        in_order = [mine[u] for u in order.get(base.user_id, []) if u in mine]
        agreed = [
            units[u][base.user_id] == reference[keys[u]]
            for u in order.get(base.user_id, [])
            if keys[u] in reference
        ]
        rows.append(
            QualityRow(
                base=base,
                prolific_id=(pids.get(base.user_id) or "").split(":")[0],
                majority=tally(list(mine.values())),
                reference=tally(agreed),
                decided_their_way=reviewed.get(f"user:{base.username}", Tally()),
                trend=trend(in_order),
            )
        )
    return rows


Extra = Mapping[str, Mapping[str, Any]]  # username -> added columns' values


def _records(campaign: Campaign, extra: Extra | None, columns: Sequence[str]) -> list[dict]:
    """The rows as records, with ``columns`` added from ``extra`` (None where it has none:
    a crowd model's skill and confusion, ``annotation/crowd/workers.py``)."""
    floor = speeding_floor_ms(campaign.task_type)
    records = [r.as_record(floor) for r in quality_rows(campaign)]
    for record in records:
        added = (extra or {}).get(record["annotator"], {})
        record.update({c: added.get(c) for c in columns})
    return records


def quality_frame(
    campaign: Campaign, extra: Extra | None = None, columns: Sequence[str] = ()
) -> pd.DataFrame:
    records = _records(campaign, extra, columns)
    return pd.DataFrame(records, columns=[*COLUMNS, *columns])


def sorted_records(
    campaign: Campaign,
    sort: str,
    descending: bool,
    extra: Extra | None = None,
    columns: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The rows as records, sorted by a column (missing values last either way)."""
    records = _records(campaign, extra, columns)
    present = [r for r in records if r[sort] is not None]
    missing = [r for r in records if r[sort] is None]
    present.sort(key=lambda r: r["annotator"])
    present.sort(key=lambda r: r[sort], reverse=descending)  # stable: ties stay by name
    return present + missing
