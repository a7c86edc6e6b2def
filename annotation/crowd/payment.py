"""Paying the crowd: per annotator of a campaign, approve or reject (with a reason that follows
Prolific's rules), a bonus, time on task and effective hourly pay against a minimum; written as
Prolific's files (an approvals list, and the bulk-bonus file: ``participant_id,amount`` per
line).

Rules (Prolific's: a submission may be rejected for failed attention checks, never for how
its answers compare with others' on a subjective task):

- reject: two or more failed attention checks ("Failed N of M attention checks");
- review (the researcher decides, with Prolific's manual-review rules): speeding, i.e. a median
  time per item under the task's floor, or gold accuracy under the campaign's threshold;
- approve: everyone else, including workers stopped by the qualification test or the skill
  floor (they did the work asked of them).

Bonus of an approved worker: the top-up to the minimum hourly pay for their time on task (the
reward per submission counted first), plus ``skill_bonus`` when their estimated skill (Wawa on
the campaign's labels) reaches ``skill_bonus_min``. Amounts are in the study's currency, with
two decimals, rounded up to the penny so the minimum is never missed by rounding.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import ClassVar

from annotation.crowd.aggregation import AggregationError, aggregate
from annotation.crowd.workers import campaign_units
from annotation.models import AnnotatorProfile, Assignment, Campaign
from annotation.quality.progress import annotator_rows
from crux_app.parameters import JobParameters, param

APPROVE, REJECT, REVIEW = "approve", "reject", "review"
MAX_AMOUNT = 1000.0


@dataclass(frozen=True)
class PaymentParams(JobParameters):
    """The payment page's choices (and its downloads'), declared once."""

    command: ClassVar[str | None] = None
    reward: float = param(
        1.0, minimum=0.0, maximum=MAX_AMOUNT, decimals=2, label="Reward per submission",
        help="What the study pays each submission (its currency).",
    )  # fmt: skip
    minimum_hourly: float = param(
        9.0, minimum=0.0, maximum=MAX_AMOUNT, decimals=2, label="Minimum hourly pay",
        help="Approved workers are topped up to this rate for their time on task.",
    )  # fmt: skip
    skill_bonus: float = param(
        0.0, minimum=0.0, maximum=MAX_AMOUNT, decimals=2, label="Skill bonus",
        help="Paid to approved workers whose estimated skill reaches the skill bonus minimum.",
    )  # fmt: skip
    skill_bonus_min: float = param(
        0.8, minimum=0.0, maximum=1.0, decimals=2, label="Skill bonus minimum"
    )


@dataclass(frozen=True)
class PaymentRow:
    username: str
    participant_id: str  # Prolific's; "" for invited accounts (left out of the files)
    labels: int
    time_ms: int
    decision: str
    reason: str
    skill: float | None
    bonus: float
    hourly: float | None  # (reward + bonus) per hour on task
    hourly_before_bonus: float | None
    under_minimum: bool  # the reward alone pays under the minimum hourly rate


def _pennies_up(amount: float) -> float:
    return math.ceil(round(amount * 100, 6)) / 100


def _skills(campaign: Campaign) -> dict[str, float]:
    try:
        model = aggregate(campaign_units(campaign), "wawa")
    except AggregationError:
        return {}
    return {str(w): m.skill for w, m in model.workers.items()}


def _decision(campaign: Campaign, row) -> tuple[str, str]:
    quality = row.quality
    failed = quality.attention_n - quality.attention_passed
    if failed >= 2:
        return REJECT, f"Failed {failed} of {quality.attention_n} attention checks"
    if row.speeding:
        return REVIEW, "Median time per item under the task's floor (check for low effort)"
    if quality.gold_failed:
        return REVIEW, (
            f"Gold accuracy {quality.gold_accuracy:.0%} under {campaign.gold_min_accuracy:.0%}"
        )
    return APPROVE, ""


def payment_rows(campaign: Campaign, params: PaymentParams) -> list[PaymentRow]:
    """Every annotator of the campaign with a submitted answer, by name."""
    times: dict[int, int] = {}
    for user_id, ms in (
        Assignment.objects.submitted()
        .filter(campaign=campaign)
        .values_list("annotator_id", "time_spent_ms")
    ):
        times[user_id] = times.get(user_id, 0) + (ms or 0)
    pids = dict(AnnotatorProfile.objects.values_list("user_id", "prolific_pid"))
    skills = _skills(campaign)
    out = []
    for row in sorted(annotator_rows(campaign), key=lambda r: r.username):
        if row.submitted + row.controls == 0:
            continue
        decision, reason = _decision(campaign, row)
        time_ms = times.get(row.user_id, 0)
        hours = time_ms / 3_600_000
        skill = skills.get(row.username)
        bonus = 0.0
        if decision != REJECT:
            bonus = max(0.0, params.minimum_hourly * hours - params.reward)
            if params.skill_bonus and skill is not None and skill >= params.skill_bonus_min:
                bonus += params.skill_bonus
        bonus = _pennies_up(bonus)
        paid = params.reward if decision != REJECT else 0.0
        out.append(
            PaymentRow(
                username=row.username,
                participant_id=(pids.get(row.user_id) or "").split(":")[0],
                labels=row.submitted,
                time_ms=time_ms,
                decision=decision,
                reason=reason,
                skill=skill,
                bonus=bonus,
                hourly=(paid + bonus) / hours if hours else None,
                hourly_before_bonus=paid / hours if hours else None,
                under_minimum=bool(hours) and paid / hours < params.minimum_hourly,
            )
        )
    return out


def approvals_csv(rows: list[PaymentRow]) -> str:
    """``participant_id,decision,reason`` of the Prolific participants (a header line first)."""
    out = io.StringIO()
    out.write("participant_id,decision,reason\n")
    for r in rows:
        if r.participant_id:
            reason = r.reason.replace('"', "'")
            out.write(f'{r.participant_id},{r.decision},"{reason}"\n')
    return out.getvalue()


def bonus_file(rows: list[PaymentRow]) -> str:
    """Prolific's bulk bonus: ``participant_id,amount`` per line, no header, amounts with two
    decimals, only participants with a bonus (and never a rejected one)."""
    return "".join(
        f"{r.participant_id},{r.bonus:.2f}\n"
        for r in rows
        if r.participant_id and r.bonus > 0 and r.decision != REJECT
    )
