"""Stored DENSE results (one row per question, run, k, models and settings) and researchers'
judgments of them (original answer correct, rephrase faithful, two responses equivalent)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import models

from crux_app.models import Judge, Run, Topic
from crux_app.result_models import MethodResult


def dense_key(
    topic_id: int, run_id: int, k: int, generator: str, nli: str, params: dict[str, Any]
) -> str:
    """The row's identity as a sha256 hex string (unique), so a retried batch stores nothing
    twice."""
    identity = [topic_id, run_id, k, generator, nli, params]
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DenseResult(MethodResult):
    """DENSE of one question under a run's top-k, with its diagnosis and refinement.

    ``detail`` holds ``DenseEvaluation.to_dict()`` (chunks, rephrased chunks, responses,
    directed NLI decisions, W, labels, ablation answers, rephrase faithfulness), the chunks'
    passage ids, the refinement steps, the semantic chunks and the batch's call counts.
    """

    key = models.CharField(max_length=64, unique=True)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="dense_results")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="dense_results")
    k = models.PositiveIntegerField()
    generator = models.CharField(max_length=300)
    nli = models.CharField(max_length=300)
    params = models.JSONField(default=dict)
    dse = models.FloatField()
    uncertain = models.BooleanField()
    answer = models.TextField(blank=True)  # r_0, the answer under the original context
    correct = models.BooleanField(null=True, blank=True)  # lexical match with a gold answer
    final_answer = models.TextField(blank=True)  # after refinement (r_0 when not refined)
    final_dse = models.FloatField(null=True, blank=True)
    final_correct = models.BooleanField(null=True, blank=True)
    detail = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "run", "k", "pk"]
        indexes = [models.Index(fields=["run", "k"])]

    def __str__(self) -> str:
        return f"DENSE {self.topic_id} {self.run_id}@{self.k} ({self.generator})"

    @property
    def n_responses(self) -> int:
        return len(self.detail.get("responses", []))


class DenseLabel(MethodResult):
    """A researcher's yes/no on one DENSE decision, beside the machine's decision then.

    kind ``answer_correct``: is r_0 correct (i = j = 0; machine: lexical match with gold);
    ``rephrase_faithful``: is chunk i's rephrase faithful (j = 0; machine: the NLI judge's
    entailment both ways); ``response_equivalent``: are r_i and r_j equivalent (i < j;
    machine: W[i][j] = 1).
    """

    class Kind(models.TextChoices):
        ANSWER_CORRECT = "answer_correct", "Original answer correct"
        REPHRASE_FAITHFUL = "rephrase_faithful", "Rephrase faithful"
        RESPONSE_EQUIVALENT = "response_equivalent", "Responses equivalent"

    collection_path = "result__topic__collection_id"
    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="dense_labels")
    result = models.ForeignKey(DenseResult, on_delete=models.CASCADE, related_name="labels")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    i = models.PositiveIntegerField(default=0)
    j = models.PositiveIntegerField(default=0)
    value = models.BooleanField()
    machine_decision = models.BooleanField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["result", "kind", "i", "j"]
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "result", "kind", "i", "j"], name="uniq_dense_label"
            )
        ]

    def __str__(self) -> str:
        return f"{self.judge} {self.kind} {self.i}/{self.j}: {'yes' if self.value else 'no'}"
