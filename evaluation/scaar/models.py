"""Stored SCAAR analyses: one row per (generated output, models, settings)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import models

from crux_app.result_models import MethodResult


def analysis_key(output_id: int, generator: str, embedder: str, params: dict[str, Any]) -> str:
    """The row's identity as a sha256 hex string (a re-run or redelivery finds it again)."""
    identity = [output_id, generator, embedder, params]
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ScaarAnalysis(MethodResult):
    """SCAAR's diagnosis of one generated answer or report.

    ``detail`` holds every sentence's words, probabilities, contributions r and r', thresholds,
    trigger, PFQ and FLARE queries and the passages each query retrieves (BM25 over the
    collection); ``n_retrievals`` is N_R. When the topic has gold answers the answer is also
    regenerated from the SCAAR-retrieved passages and both are scored (``score_*``).
    """

    class LogprobSource(models.TextChoices):
        STORED = "stored", "Stored with the answer"
        SCORED = "scored", "Teacher-forced by the generator"

    collection_path = "collection_id"
    topic_path = "topic_id"  # a write names the topics it touched
    key = models.CharField(max_length=64, unique=True)
    output = models.ForeignKey(
        "crux_app.GeneratedOutput", on_delete=models.CASCADE, related_name="scaar_analyses"
    )
    collection = models.ForeignKey(
        "crux_app.Collection", on_delete=models.CASCADE, related_name="scaar_analyses"
    )
    topic = models.ForeignKey(
        "crux_app.Topic", on_delete=models.CASCADE, related_name="scaar_analyses"
    )
    generator = models.CharField(max_length=300)
    embedder = models.CharField(max_length=300)
    params = models.JSONField(default=dict)
    logprob_source = models.CharField(max_length=16, choices=LogprobSource.choices)
    n_sentences = models.PositiveIntegerField()
    n_retrievals = models.PositiveIntegerField()
    flare_retrievals = models.PositiveIntegerField()
    score_metric = models.CharField(max_length=8, blank=True)
    score_before = models.FloatField(null=True, blank=True)
    score_after = models.FloatField(null=True, blank=True)
    refined_text = models.TextField(blank=True)
    detail = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["collection", "output__external_id", "-created_at"]
        indexes = [models.Index(fields=["collection", "created_at"])]
        verbose_name_plural = "SCAAR analyses"

    def __str__(self) -> str:
        return f"SCAAR {self.output_id} ({self.generator})"

    @property
    def score_delta(self) -> float | None:
        if self.score_before is None or self.score_after is None:
            return None
        return self.score_after - self.score_before

    @property
    def flare_refined_text(self) -> str:
        return (self.detail.get("flare") or {}).get("refined_text", "")

    @property
    def flare_score_after(self) -> float | None:
        return (self.detail.get("flare") or {}).get("score_after")

    @property
    def flare_score_delta(self) -> float | None:
        if self.score_before is None or self.flare_score_after is None:
            return None
        return self.flare_score_after - self.score_before
