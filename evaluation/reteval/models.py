"""What an LLM-retEval job stores: each CompareGPT comparison, and one result per
(question, run, k, judge) with its retrieval scores, verdict and candidate failure category.

The answers themselves are crux_app ``GeneratedOutput`` rows (kind ``answer``): the RAG answer
of a run's top-k (with its ``OutputContext``) and the semi-gold answers (system ``semi-gold``,
generated from the gold passages), as the annotation app's failure-category task expects.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from crux_app.result_models import MethodResult, ResultQuerySet
from evaluation.reteval.method.verdicts import CATEGORIES


class Comparison(MethodResult):
    """One judge call: does the RAG answer match this semi-gold answer? (None: unparsable)."""

    collection_path = "rag_output__collection_id"
    topic_path = "rag_output__topic_id"  # a write names the topics it touched
    rag_output = models.ForeignKey(
        "crux_app.GeneratedOutput", on_delete=models.CASCADE, related_name="reteval_comparisons"
    )
    reference = models.ForeignKey(
        "crux_app.GeneratedOutput", on_delete=models.CASCADE, related_name="+"
    )
    judge = models.CharField(max_length=300)  # the judge model's id
    prompt_version = models.CharField(max_length=100)
    prompt = models.TextField()
    raw_output = models.TextField(blank=True)
    verdict = models.BooleanField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rag_output", "reference"]
        constraints = [
            models.UniqueConstraint(
                fields=["rag_output", "reference", "judge", "prompt_version"],
                name="uniq_reteval_comparison",
            )
        ]

    def __str__(self) -> str:
        return f"{self.rag_output_id} vs {self.reference_id}: {self.verdict}"


class RetEvalResultQuerySet(ResultQuerySet):
    def disagreeing(self) -> RetEvalResultQuerySet:
        return self.exclude(category="")


class RetEvalResult(MethodResult):
    """LLM-retEval of one question under one run's top-k, by one judge (prompt version)."""

    topic = models.ForeignKey(
        "crux_app.Topic", on_delete=models.CASCADE, related_name="reteval_results"
    )
    run = models.ForeignKey("crux_app.Run", on_delete=models.CASCADE, related_name="+")
    k = models.PositiveIntegerField()
    judge = models.CharField(max_length=300)
    prompt_version = models.CharField(max_length=100)
    rag_output = models.ForeignKey(
        "crux_app.GeneratedOutput", on_delete=models.CASCADE, related_name="reteval_results"
    )
    recall = models.FloatField()
    precision = models.FloatField()
    f1 = models.FloatField()
    verdict = models.BooleanField(null=True)  # None: no Yes and an unparsable comparison
    n_yes = models.PositiveSmallIntegerField(default=0)
    n_no = models.PositiveSmallIntegerField(default=0)
    n_unparsable = models.PositiveSmallIntegerField(default=0)
    answer_correct = models.BooleanField(null=True)  # lexical match with the gold answers
    category = models.CharField(
        max_length=1, blank=True, choices=[(c, c) for c in CATEGORIES]
    )  # "" where Recall@k and the verdict agree
    category_reason = models.TextField(blank=True)
    job = models.ForeignKey("crux_app.Job", null=True, blank=True, on_delete=models.SET_NULL)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RetEvalResultQuerySet.as_manager()

    class Meta:
        ordering = ["run", "k", "topic"]
        constraints = [
            models.UniqueConstraint(
                fields=["topic", "run", "k", "judge", "prompt_version"],
                name="uniq_reteval_result",
            ),
            models.CheckConstraint(condition=Q(k__gte=1), name="reteval_k_positive"),
        ]
        indexes = [models.Index(fields=["run", "k"])]

    def __str__(self) -> str:
        return f"{self.topic_id} {self.run_id}@{self.k}: {self.verdict}"
