"""Nuggets, answers sentence by sentence, and the labels judges give them.

- ``Nugget``: one position of a topic's ordered nugget list, identified by (topic, position) as
  the nuggetizer's files are; ``subquestion`` links it to the CRUX sub-question made from it (or
  that it was made from), so CRUX's passage ratings read as nugget-passage support.
- ``AnswerSentence``: a TREC RAG answer is a ``GeneratedOutput`` of the run (its references are
  the output's context, in order); each sentence keeps its citations as indexes into them.
- ``NuggetAssignment``: a judge's support / partial_support / not_support for (nugget, answer).
- ``NuggetPassageRating``: a judge's 0-5 rating of how well a passage answers a nugget (CRUX
  answerability with the nugget as the sub-question).
- ``SentenceSupport``: a judge's 0/1/2 for "does this cited passage support this sentence".
- ``NuggetEdit``: one operation of an annotator's post-edit of a topic's list, kept when the
  edited list was adopted into the collection (``adopt_nugget_edits``).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from crux_app.models import GeneratedOutput, Judge, Passage, SubQuestion, Topic
from evaluation.nuggets.method.list_edits import OPS
from evaluation.nuggets.method.scores import (
    NOT_SUPPORT,
    OKAY,
    PARTIAL_SUPPORT,
    SUPPORT,
    VITAL,
)


class Nugget(models.Model):
    class Importance(models.TextChoices):
        VITAL = VITAL, "vital"
        OKAY = OKAY, "okay"

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="nuggets")
    position = models.PositiveIntegerField()
    text = models.TextField()
    importance = models.CharField(max_length=8, choices=Importance.choices)
    subquestion = models.ForeignKey(
        SubQuestion, null=True, blank=True, on_delete=models.SET_NULL, related_name="nuggets"
    )

    class Meta:
        ordering = ["topic", "position"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "position"], name="uniq_nugget_position")
        ]

    def __str__(self) -> str:
        return f"{self.topic.external_id}#{self.position}"


class AnswerSentence(models.Model):
    output = models.ForeignKey(GeneratedOutput, on_delete=models.CASCADE, related_name="sentences")
    position = models.PositiveIntegerField()
    text = models.TextField()
    # Indexes into the answer's references (the output's context positions).
    citations = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["output", "position"]
        constraints = [
            models.UniqueConstraint(fields=["output", "position"], name="uniq_answer_sentence")
        ]


class NuggetAssignment(models.Model):
    class Assignment(models.TextChoices):
        SUPPORT = SUPPORT, "support"
        PARTIAL_SUPPORT = PARTIAL_SUPPORT, "partial support"
        NOT_SUPPORT = NOT_SUPPORT, "not support"

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="nugget_assignments")
    nugget = models.ForeignKey(Nugget, on_delete=models.CASCADE, related_name="assignments")
    output = models.ForeignKey(
        GeneratedOutput, on_delete=models.CASCADE, related_name="nugget_assignments"
    )
    assignment = models.CharField(max_length=16, choices=Assignment.choices)
    # Distribution mode: P(label) at the answer position, where the backend gives log-probs.
    distribution = models.JSONField(null=True, blank=True)
    raw_output = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "nugget", "output"], name="uniq_nugget_assignment"
            )
        ]


class NuggetPassageRating(models.Model):
    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="nugget_ratings")
    nugget = models.ForeignKey(Nugget, on_delete=models.CASCADE, related_name="passage_ratings")
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="nugget_ratings")
    rating = models.SmallIntegerField()
    raw_output = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "nugget", "passage"], name="uniq_nugget_passage_rating"
            ),
            models.CheckConstraint(
                condition=Q(rating__gte=0) & Q(rating__lte=5), name="nugget_rating_range"
            ),
        ]


class SentenceSupport(models.Model):
    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="sentence_supports")
    sentence = models.ForeignKey(AnswerSentence, on_delete=models.CASCADE, related_name="supports")
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="sentence_supports")
    grade = models.SmallIntegerField()
    raw_output = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "sentence", "passage"], name="uniq_sentence_support"
            ),
            models.CheckConstraint(
                condition=Q(grade__gte=0) & Q(grade__lte=2), name="sentence_support_range"
            ),
        ]


class NuggetEdit(models.Model):
    """One operation of an adopted post-edit, in the annotator's order (``sequence``).

    ``positions``, ``before`` and ``after`` are the operation's own (``method.list_edits``);
    the assignment may later be deleted with its campaign, so the campaign's slug is kept too."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="nugget_edits")
    assignment = models.ForeignKey(
        "annotation.Assignment",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="nugget_edits",
    )
    campaign = models.CharField(max_length=80, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="nugget_edits",
    )
    sequence = models.PositiveIntegerField()
    op = models.CharField(max_length=16, choices=[(op, op) for op in OPS])
    positions = models.JSONField(default=list)
    before = models.JSONField(default=list)
    after = models.JSONField(default=list)
    # Milliseconds after the item was shown to the annotator.
    at_ms = models.PositiveBigIntegerField(default=0)
    applied_at = models.DateTimeField()

    class Meta:
        ordering = ["topic", "applied_at", "assignment_id", "sequence"]
        indexes = [models.Index(fields=["topic", "applied_at"], name="nugget_edit_topic_idx")]
