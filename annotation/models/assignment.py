"""Who labels what: an annotator's assignment of one item, and the annotator's profile."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotation.task_types.names import ANSWER_EQUIVALENCE, FAILURE_CATEGORY

from .campaign import Campaign, CampaignItem


class AssignmentQuerySet(models.QuerySet):
    def live(self, now: datetime) -> AssignmentQuerySet:
        """Reservations still held at ``now``."""
        return self.filter(state=Assignment.State.RESERVED, reserved_until__gte=now)

    def submitted(self) -> AssignmentQuerySet:
        return self.filter(state=Assignment.State.SUBMITTED)

    def latest_first(self) -> AssignmentQuerySet:
        """Newest submission first (ties: the later row first)."""
        return self.order_by("-submitted_at", "-id")

    def latest_submitted(self, campaign_id: int, annotator_id: int) -> Assignment | None:
        """The annotator's most recent submitted answer in the campaign."""
        return (
            self.submitted()
            .filter(campaign_id=campaign_id, annotator_id=annotator_id)
            .latest_first()
            .first()
        )

    def labels(self, task_type: str) -> AssignmentQuerySet:
        """Submitted answers of one task type over every campaign, one row per assignment:
        campaign, item, topic, output (and reference output), annotator and the answer JSON.

        The agreement analysis reads tasks 3 and 4 through this (tasks 1 and 2 are also
        mirrored as judgments); attention checks are left out, gold items are kept and flagged.
        """
        return (
            self.submitted()
            .filter(campaign__task_type=task_type, item__is_attention_check=False)
            .order_by("item_id", "annotator_id")
            .values(
                "campaign_id",
                "item_id",
                "annotator_id",
                "answer",
                "time_spent_ms",
                "submitted_at",
                annotator_name=F("annotator__username"),
                topic_id=F("item__topic_id"),
                output_id=F("item__output_id"),
                reference_output_id=F("item__reference_output_id"),
                is_gold=F("item__is_gold"),
            )
        )

    def equivalence_labels(self) -> AssignmentQuerySet:
        """Task 3 labels: ``answer["equivalent"]`` per (answer output, annotator)."""
        return self.labels(ANSWER_EQUIVALENCE)

    def failure_category_labels(self) -> AssignmentQuerySet:
        """Task 4 labels: ``answer["category"]`` (A-F) per (RAG answer, annotator)."""
        return self.labels(FAILURE_CATEGORY)


class Assignment(models.Model):
    """One item handed to one annotator: reserved, then submitted, skipped or expired.

    One row per (item, annotator), reused when the item comes back to the same annotator, so a
    submit is idempotent and an item is never counted twice for one person.
    """

    class State(models.TextChoices):
        RESERVED = "reserved", "Reserved"
        SUBMITTED = "submitted", "Submitted"
        SKIPPED = "skipped", "Skipped"
        EXPIRED = "expired", "Expired"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    item = models.ForeignKey(CampaignItem, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.RESERVED)
    reserved_at = models.DateTimeField()
    reserved_until = models.DateTimeField()
    draft = models.JSONField(default=dict, blank=True)
    answer = models.JSONField(null=True, blank=True)
    time_spent_ms = models.PositiveIntegerField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    skipped_at = models.DateTimeField(null=True, blank=True)
    # Post-editing campaigns: the machine judge's answer the item opened with (None: none was
    # shown), and whether the submitted answer kept its label unchanged (None: no suggestion).
    suggestion = models.JSONField(null=True, blank=True)
    kept_suggestion = models.BooleanField(null=True, blank=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "reserved_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="uniq_assignment"),
        ]
        indexes = [
            models.Index(fields=["campaign", "annotator", "state"], name="assignment_mine_idx"),
            models.Index(
                fields=["campaign", "reserved_until"],
                condition=Q(state="reserved"),
                name="assignment_reserved_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id}@{self.item_id} ({self.state})"


class AnnotatorProfile(models.Model):
    """How an annotator account came to be: invited by a researcher, or a Prolific arrival."""

    class Source(models.TextChoices):
        INVITED = "invited", "Invited"
        PROLIFIC = "prolific", "Prolific"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotator_profile"
    )
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.INVITED)
    prolific_pid = models.CharField(max_length=64, null=True, blank=True, unique=True)
    prolific_study_id = models.CharField(max_length=64, blank=True)
    prolific_session_id = models.CharField(max_length=64, blank=True)
    # When the participant's link first logged in: the link is a one-time entry, after which
    # only the browser session it logged in keeps the account (annotation/accounts.py).
    prolific_entered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user} ({self.source})"
