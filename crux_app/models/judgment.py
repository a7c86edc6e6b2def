"""Judges, their judgments of (sub-question x passage/output) items, and imported qrels."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from .collection import GeneratedOutput, Passage, SubQuestion, Topic
from .managers import JudgeQuerySet, JudgmentQuerySet


class Judge(models.Model):
    """Who gave a judgment: an LLM (model id + prompt version), a person, an ensemble of
    judges (``JudgeEnsemble``: its labels are combined from its members'), the adjudicated
    reference of a review campaign (its reviewers' decisions on disagreements), or a person's
    post-edited labels (labels given in a campaign that showed a machine judge's suggestion:
    not blind, so never pooled with the person's blind ``human`` labels)."""

    class Kind(models.TextChoices):
        LLM = "llm", "LLM"
        HUMAN = "human", "Human"
        ENSEMBLE = "ensemble", "Ensemble"
        ADJUDICATED = "adjudicated", "Adjudicated"
        POST_EDITED = "post_edited", "Human (post-edited)"
        # Several people's (and optionally machines') labels combined by a crowd model
        # (``annotation/crowd/label_aggregation.py``).
        AGGREGATED = "aggregated", "Aggregated"

    name = models.CharField(max_length=300, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    model_id = models.CharField(max_length=300, blank=True)
    prompt_version = models.CharField(max_length=100, blank=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="judge",
    )

    objects = JudgeQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["model_id", "prompt_version"],
                condition=Q(kind="llm"),
                name="uniq_llm_judge_identity",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def llm_name(cls, model_id: str, prompt_version: str) -> str:
        return f"{model_id}@{prompt_version}"


class Judgment(models.Model):
    """One judge's rating of one item: (sub-question, passage) or (sub-question, output).

    ``rating`` is 0-5 for graded tasks and 0/1 for binary ones; it is null when a model's raw
    output could not be parsed (the raw output is kept and counted, never coerced to 0).
    """

    class Task(models.TextChoices):
        PASSAGE_RATING = "passage_rating", "Passage x sub-question rating (0-5)"
        REPORT_COVERAGE = "report_coverage", "Report x sub-question answerable (0/1)"

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="judgments")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="judgments")
    subquestion = models.ForeignKey(SubQuestion, on_delete=models.CASCADE, related_name="judgments")
    passage = models.ForeignKey(
        Passage, null=True, blank=True, on_delete=models.CASCADE, related_name="judgments"
    )
    output = models.ForeignKey(
        GeneratedOutput, null=True, blank=True, on_delete=models.CASCADE, related_name="judgments"
    )
    task = models.CharField(max_length=32, choices=Task.choices)
    rating = models.SmallIntegerField(null=True, blank=True)
    rationale = models.TextField(blank=True)
    rationale_start = models.PositiveIntegerField(null=True, blank=True)
    rationale_end = models.PositiveIntegerField(null=True, blank=True)
    raw_output = models.TextField(blank=True)
    # A judge in distribution mode: P(rating 0..5) at the answer position; ``rating`` is then
    # the most likely rating. Null for greedy judges and people.
    distribution = models.JSONField(null=True, blank=True)
    prompt = models.TextField(blank=True)
    time_spent_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = JudgmentQuerySet.as_manager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(Q(passage__isnull=False) & Q(output__isnull=True))
                | (Q(passage__isnull=True) & Q(output__isnull=False)),
                name="judgment_one_item",
            ),
            models.CheckConstraint(
                condition=Q(rating__isnull=True) | (Q(rating__gte=0) & Q(rating__lte=5)),
                name="judgment_rating_range",
            ),
            models.UniqueConstraint(
                fields=["judge", "subquestion", "passage"],
                condition=Q(passage__isnull=False),
                name="uniq_judgment_passage_item",
            ),
            models.UniqueConstraint(
                fields=["judge", "subquestion", "output"],
                condition=Q(output__isnull=False),
                name="uniq_judgment_output_item",
            ),
        ]
        indexes = [models.Index(fields=["judge", "topic"])]

    @property
    def is_parsed(self) -> bool:
        return self.rating is not None


class CoverageLabel(models.Model):
    """The coverage figure a judge reported for a whole output, kept as the source gave it.

    CRUX's platform exports its own ``coverage`` per report; it is not always recomputable
    from the answerability list, so exports reproduce the stored figure.
    """

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="coverage_labels")
    output = models.ForeignKey(
        GeneratedOutput, on_delete=models.CASCADE, related_name="coverage_labels"
    )
    coverage = models.FloatField(null=True, blank=True)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "output"], name="uniq_coverage_label")
        ]


class PassageQrel(models.Model):
    """A graded passage qrel: CRUX grades 3 required, 2 partially and 1 fully redundant."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="qrels")
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="qrels")
    grade = models.SmallIntegerField()
    source = models.CharField(max_length=100, default="imported")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["topic", "passage", "source"], name="uniq_passage_qrel")
        ]


class SubtopicQrel(models.Model):
    """A diversity qrel: is the passage relevant to sub-question i (alpha-nDCG subtopics)."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="subtopic_qrels")
    subquestion = models.ForeignKey(SubQuestion, on_delete=models.CASCADE)
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE)
    relevant = models.BooleanField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["subquestion", "passage"], name="uniq_subtopic_qrel")
        ]
