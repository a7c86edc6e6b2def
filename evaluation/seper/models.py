"""Stored SePer scores (one row per topic or sub-question, context, generator, NLI model and
sampling settings), human answer-equivalence labels of their responses, and the entailment
kernel's answer-equivalence decisions the agreement analysis compares those labels with."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import models

from crux_app.models import GeneratedOutput, Judge, Passage, Run, SubQuestion, Topic
from crux_app.result_models import MethodResult, ResultQuerySet


def seper_key(
    topic_id: int,
    context_kind: str,
    passage_id: int | None,
    run_id: int | None,
    k: int | None,
    generator: str,
    nli: str,
    params: dict[str, Any],
    subquestion_id: int | None = None,
) -> str:
    """The row's identity as a sha256 hex string; NULL ids are part of it, so they cannot
    defeat the unique constraint the way NULL columns would. A topic-level row (no
    sub-question) keeps the identity it had before sub-questions were scored."""
    identity = [topic_id, context_kind, passage_id, run_id, k, generator, nli, params]
    if subquestion_id is not None:
        identity.append({"subquestion": subquestion_id})
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SeperScore(MethodResult):
    """SePer_S / SePer_H of a topic's question (or of one of its sub-questions, whose reference
    answers are the gold answers) under one context, and Delta against no context."""

    class ContextKind(models.TextChoices):
        NONE = "none", "No context"
        PASSAGE = "passage", "One passage"
        RUN = "run", "Run top-k"
        ORACLE = "oracle", "Gold passages"

    key = models.CharField(max_length=64, unique=True)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="seper_scores")
    # Set for long-form topics scored per sub-question against its reference answers.
    subquestion = models.ForeignKey(
        SubQuestion, on_delete=models.CASCADE, null=True, blank=True, related_name="seper_scores"
    )
    context_kind = models.CharField(max_length=16, choices=ContextKind.choices)
    passage = models.ForeignKey(
        Passage, on_delete=models.CASCADE, null=True, blank=True, related_name="seper_scores"
    )
    run = models.ForeignKey(
        Run, on_delete=models.CASCADE, null=True, blank=True, related_name="seper_scores"
    )
    k = models.PositiveIntegerField(null=True, blank=True)
    generator = models.CharField(max_length=300)
    nli = models.CharField(max_length=300)
    params = models.JSONField(default=dict)  # the SamplingParams (N, temperature, seed, ...)
    seper_s = models.FloatField()
    seper_h = models.FloatField()
    delta_s = models.FloatField(null=True, blank=True)  # null for the no-context baseline
    delta_h = models.FloatField(null=True, blank=True)
    # ContextResult.to_dict(): prompt, responses, weights, clusters, kernel, sample key.
    detail = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "context_kind", "pk"]
        indexes = [models.Index(fields=["topic", "generator", "nli"])]

    def __str__(self) -> str:
        return f"SePer {self.topic_id}/{self.context_kind} ({self.generator})"


def equivalence_key(topic_id: int, response_text: str, subquestion_id: int | None = None) -> str:
    """sha256 of the topic id (and sub-question, whose references are then the gold answers)
    and the judged response: one label per judge and response."""
    identity: list[Any] = [topic_id, response_text]
    if subquestion_id is not None:
        identity.append(subquestion_id)
    text = json.dumps(identity, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class AnswerEquivalenceLabelQuerySet(ResultQuerySet):
    def answers_by_key(self, user_id: int, topic_id: int) -> dict[str, bool]:
        """The user's stored answers on a topic, keyed by ``equivalence_key``."""
        rows = self.filter(judge__user_id=user_id, topic_id=topic_id)
        return dict(rows.values_list("key", "equivalent"))


class AnswerEquivalenceLabel(MethodResult):
    """A person's "same meaning as a gold answer?" on one response, beside the kernel's call."""

    judge = models.ForeignKey(
        Judge, on_delete=models.CASCADE, related_name="answer_equivalence_labels"
    )
    topic = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="answer_equivalence_labels"
    )
    subquestion = models.ForeignKey(
        SubQuestion,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="answer_equivalence_labels",
    )
    key = models.CharField(max_length=64)  # equivalence_key(topic, response_text, subquestion)
    response_text = models.TextField()
    seper_score = models.ForeignKey(
        SeperScore,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="equivalence_labels",
    )
    cluster_index = models.PositiveIntegerField(null=True, blank=True)
    response_index = models.PositiveIntegerField(null=True, blank=True)  # a per-response label
    equivalent = models.BooleanField()
    # The kernel's call when it was judged: the cluster's matches_gold, or the response's own.
    machine_decision = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = AnswerEquivalenceLabelQuerySet.as_manager()

    class Meta:
        ordering = ["topic", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["judge", "key"], name="unique_equivalence_per_judge")
        ]

    def __str__(self) -> str:
        return f"{self.judge} on {self.topic_id}: {'yes' if self.equivalent else 'no'}"


class AnswerEquivalenceDecision(MethodResult):
    """The entailment kernel's "same meaning as a gold answer?" on one response text.

    One row per (``equivalence_key``, NLI model): written when a person labels a sampled
    response (the decision stored in the SePer row) and by the SePer job for a topic's
    generated answers (the texts crowd annotators judge in answer-equivalence campaigns).
    The agreement analysis reads these rows as the machine rater.
    """

    class Source(models.TextChoices):
        SAMPLE = "sample", "SePer sampled response"
        OUTPUT = "output", "Generated answer"

    key = models.CharField(max_length=64)  # equivalence_key(topic, response_text, subquestion)
    topic = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="answer_equivalence_decisions"
    )
    subquestion = models.ForeignKey(
        SubQuestion, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    output = models.ForeignKey(
        GeneratedOutput, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    response_text = models.TextField()
    nli = models.CharField(max_length=300)
    source = models.CharField(max_length=8, choices=Source.choices)
    equivalent = models.BooleanField()
    matched_golds = models.JSONField(default=list)  # indices of the loosely equivalent golds
    kernel = models.JSONField(default=list)  # k(response, gold_j) per gold, when computed
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["key", "nli"], name="unique_equivalence_decision")
        ]

    def __str__(self) -> str:
        return f"{self.nli} on {self.topic_id}: {'yes' if self.equivalent else 'no'}"
