"""Annotator quality in one place: per annotator of a campaign, labels, median time (speeding
flagged against the task's floor), gold and attention accuracy, agreement with the majority of
the other annotators and with the adjudicated reference of review campaigns, the share of
their reviewed disagreements decided their way, and the trend of majority agreement over their
work. The page, its CSV (with Prolific ids) and the sort order read these rows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .annotator_agreement import Tally, majority_hits, tally, trend
from .models import AnnotatorProfile, Assignment, Campaign, ReviewDecision, ReviewItem
from .progress import AnnotatorRow, annotator_rows
from .quality import speeding_floor_ms
from .task_type_registry import TASK_TYPE_REGISTRY
from .task_types import ANSWER_EQUIVALENCE, FAILURE_CATEGORY, PASSAGE_RATING, REPORT_COVERAGE

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


def answer_units(kind: str, payload: dict, answer: dict) -> dict[Hashable, tuple[Any, str]]:
    """An answer as (label, review item key) per unit: one unit per item, one per sub-question
    for report coverage (the keys are those of ``annotation/review_labels.py``)."""
    topic = payload.get("topic", "")
    if kind == PASSAGE_RATING and "rating" in answer:
        key = f"{topic}/{payload.get('position')}/{payload.get('passage_id')}"
        return {"": (int(answer["rating"]), key)}
    if kind == REPORT_COVERAGE:
        output = payload.get("output_id")
        return {
            a["position"]: (int(a["answerable"]), f"{topic}/{a['position']}/{output}")
            for a in answer.get("answers", [])
        }
    if kind == ANSWER_EQUIVALENCE and "equivalent" in answer:
        return {"": (int(bool(answer["equivalent"])), f"{topic}/{payload.get('output_id')}")}
    if kind == FAILURE_CATEGORY and answer.get("category"):
        return {"": (str(answer["category"]), f"{topic}/{payload.get('output_id')}")}
    entry = TASK_TYPE_REGISTRY.get(kind)  # a declared type says it itself
    unit = entry.review_unit(payload, answer) if entry and entry.review_unit else None
    return {} if unit is None else {"": unit}


def _reference(campaign: Campaign) -> dict[str, Any]:
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
    reference = _reference(campaign)
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


def quality_frame(campaign: Campaign) -> pd.DataFrame:
    floor = speeding_floor_ms(campaign.task_type)
    records = [r.as_record(floor) for r in quality_rows(campaign)]
    return pd.DataFrame(records, columns=list(COLUMNS))


def sorted_records(campaign: Campaign, sort: str, descending: bool) -> list[dict[str, Any]]:
    """The rows as records, sorted by a column (missing values last either way)."""
    floor = speeding_floor_ms(campaign.task_type)
    records = [r.as_record(floor) for r in quality_rows(campaign)]
    present = [r for r in records if r[sort] is not None]
    missing = [r for r in records if r[sort] is None]
    present.sort(key=lambda r: r["annotator"])
    present.sort(key=lambda r: r[sort], reverse=descending)  # stable: ties stay by name
    return present + missing
