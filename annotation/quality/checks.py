"""Quality control per annotator: gold-item accuracy, attention-check results and speeding.

A threshold applies once the annotator has answered at least ``qc_min_answers`` items of that
kind; below it, the figure is shown but nothing is flagged. The campaign's action decides what
a gold or attention flag does: "warn" marks the annotator on the progress page, "block" also
stops the queue. Speeding (a median time per item under the task type's floor, the setting
``ANNOTATION_SPEEDING_FLOOR_SECONDS``) is a warning only: a fast reader is not blocked on
timing alone, the researcher decides.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser

from annotation.models import Assignment, Campaign
from annotation.task_types.answers import agreement_score


@dataclass
class QualityStatus:
    gold_scores: list[float] = field(default_factory=list)
    attention_results: list[bool] = field(default_factory=list)
    gold_failed: bool = False
    attention_failed: bool = False

    @property
    def gold_n(self) -> int:
        return len(self.gold_scores)

    @property
    def gold_accuracy(self) -> float | None:
        return sum(self.gold_scores) / self.gold_n if self.gold_scores else None

    @property
    def attention_n(self) -> int:
        return len(self.attention_results)

    @property
    def attention_passed(self) -> int:
        return sum(self.attention_results)

    @property
    def attention_rate(self) -> float | None:
        return self.attention_passed / self.attention_n if self.attention_results else None

    @property
    def flagged(self) -> bool:
        return self.gold_failed or self.attention_failed


def _judge(campaign: Campaign, status: QualityStatus) -> QualityStatus:
    minimum = max(1, campaign.qc_min_answers)
    accuracy = status.gold_accuracy
    status.gold_failed = (
        status.gold_n >= minimum and accuracy is not None and accuracy < campaign.gold_min_accuracy
    )
    rate = status.attention_rate
    status.attention_failed = (
        status.attention_n >= minimum
        and rate is not None
        and rate < campaign.attention_min_pass_rate
    )
    return status


def campaign_quality(
    campaign: Campaign, user: AbstractBaseUser | None = None
) -> dict[int, QualityStatus]:
    """QC status per annotator id (only annotators who answered a control item appear)."""
    rows = Assignment.objects.submitted().filter(campaign=campaign, item__is_control=True)
    if user is not None:
        rows = rows.filter(annotator=user)
    statuses: dict[int, QualityStatus] = defaultdict(QualityStatus)
    for annotator_id, answer, is_gold, gold, is_attention, expected in rows.values_list(
        "annotator_id",
        "answer",
        "item__is_gold",
        "item__gold_answer",
        "item__is_attention_check",
        "item__expected_answer",
    ):
        status = statuses[annotator_id]
        if is_gold and gold:
            status.gold_scores.append(
                agreement_score(campaign.task_type, answer, gold, campaign.gold_tolerance)
            )
        if is_attention and expected:
            status.attention_results.append(
                agreement_score(campaign.task_type, answer, expected) == 1.0
            )
    return {pk: _judge(campaign, status) for pk, status in statuses.items()}


def annotator_quality(campaign: Campaign, user: AbstractBaseUser) -> QualityStatus:
    return campaign_quality(campaign, user).get(user.pk, QualityStatus())


def speeding_floor_ms(task_type: str) -> int | None:
    """The median time per item (ms) under which an annotator of ``task_type`` is speeding."""
    seconds = settings.ANNOTATION_SPEEDING_FLOOR_SECONDS.get(task_type)
    return None if seconds is None else round(seconds * 1000)


def is_speeding(campaign: Campaign, median_ms: float | None, n_timed: int) -> bool:
    """Whether a median time per item over ``n_timed`` timed answers is under the floor
    (applied, like the other thresholds, after ``qc_min_answers`` answers)."""
    floor = speeding_floor_ms(campaign.task_type)
    if floor is None or median_ms is None:
        return False
    return n_timed >= max(1, campaign.qc_min_answers) and median_ms < floor
