"""Aggregated crowd labels: one run of a crowd model over a collection's labels of one task
(``annotation/crowd/label_aggregation.py``), kept as the judge ``aggregated:<name>``, with each
item's label and confidence and each worker's estimated skill and confusion matrix."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.campaign import visible_collections


class AggregationRunQuerySet(models.QuerySet):
    def visible_to(self, who: object, *, write: bool = False) -> AggregationRunQuerySet:
        """The runs over the collections ``who`` may see (``write``: change)."""
        return self.filter(collection__in=visible_collections(who, write=write))


class AggregationRun(models.Model):
    """The latest aggregation of one collection and task stored under one aggregated judge (a
    rerun replaces it)."""

    judge = models.ForeignKey(
        "crux_app.Judge", on_delete=models.CASCADE, related_name="aggregations"
    )
    collection = models.ForeignKey(
        "crux_app.Collection", on_delete=models.CASCADE, related_name="aggregations"
    )
    task_type = models.CharField(max_length=32)
    method = models.CharField(max_length=32)
    seed = models.IntegerField(default=0)
    campaign_slug = models.CharField(max_length=80, blank=True)
    judges = models.JSONField(default=list)  # the workers' judge names, in order
    machines = models.JSONField(default=list)  # those of them that are machine judges
    # [{"judge", "skill", "n_labels", "confusion": {true: {given: p}}}]
    workers = models.JSONField(default=list)
    n_items = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now=True)

    objects = AggregationRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "collection", "task_type"], name="uniq_aggregation_run"
            )
        ]

    def __str__(self) -> str:
        return f"{self.judge_id} {self.method}"


class AggregatedLabel(models.Model):
    """One item's aggregated label, keyed as the review queue keys items of its task."""

    run = models.ForeignKey(AggregationRun, on_delete=models.CASCADE, related_name="labels")
    key = models.CharField(max_length=700)
    topic = models.ForeignKey("crux_app.Topic", on_delete=models.CASCADE, related_name="+")
    subquestion_id = models.IntegerField(null=True, blank=True)
    passage_id = models.IntegerField(null=True, blank=True)
    output_id = models.IntegerField(null=True, blank=True)
    reference_output_id = models.IntegerField(null=True, blank=True)
    own_id = models.IntegerField(null=True, blank=True)  # a method's row (a nugget)
    label = models.JSONField()
    confidence = models.FloatField()
    n_labels = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "key"], name="uniq_aggregated_label_key")
        ]


class WorkerStop(models.Model):
    """An annotator stopped from taking new items of a campaign, and why (a failed
    qualification test, a skill under the campaign's floor): the researcher sees it."""

    class Reason(models.TextChoices):
        QUALIFICATION = "qualification", "Failed the qualification test"
        SKILL_FLOOR = "skill_floor", "Estimated skill under the floor"

    campaign = models.ForeignKey(
        "annotation.Campaign", on_delete=models.CASCADE, related_name="worker_stops"
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_stops"
    )
    reason = models.CharField(max_length=16, choices=Reason.choices)
    detail = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "annotator"], name="uniq_worker_stop")
        ]
