"""Collections and what they hold: topics, sub-questions, passages, runs, generated outputs."""

import secrets
import uuid

from django.core.exceptions import ValidationError
from django.db import models

from crux_app.collection_names import collection_name_problem, validate_collection_name

from .managers import CollectionQuerySet, RunEntryQuerySet, RunQuerySet, TopicQuerySet
from .workspace import Workspace, default_workspace_pk


def new_unit_token() -> int:
    """A random per-topic version token (``crux_app.data_version``): random, not a counter, so
    that two databases never share one, and positive, so it fits a BigIntegerField."""
    return secrets.randbits(62) + 1


class Collection(models.Model):
    class Kind(models.TextChoices):
        REPORT = "report", "Long-form reports"
        QA = "qa", "Short-answer QA"
        MIXED = "mixed", "Mixed"

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.REPORT)
    created_at = models.DateTimeField(auto_now_add=True)
    # Who may see and change it (``crux_app.access``); commands and imports that name no
    # workspace use ``default``.
    workspace = models.ForeignKey(
        Workspace,
        on_delete=models.PROTECT,
        related_name="collections",
        default=default_workspace_pk,
    )
    # A new random token whenever rows the collection's figures are computed from change
    # (``crux_app.data_version``): pages cache derived tables under it. Random, not a counter,
    # so that two databases (a test run and the next) never share a key in a shared cache.
    data_version = models.UUIDField(default=uuid.uuid4, editable=False)
    # The generation of every topic's unit version together: a write that cannot name the
    # topics it touched moves it, and with it every per-topic derived value (``unit_cache``).
    unit_epoch = models.BigIntegerField(default=new_unit_token, editable=False)
    # When the data version last moved (None: not since this field exists; ``created_at``
    # stands in): pages computed from changing data say "as of" this time.
    data_changed_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = CollectionQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def data_time(self):  # noqa: ANN201 (a datetime)
        """When the rows its figures are computed from last changed (as far as it is known)."""
        return self.data_changed_at or self.created_at

    def clean(self) -> None:
        """The admin's and model forms' check of the name (see ``crux_app.collection_names``)."""
        super().clean()
        try:
            validate_collection_name(self.name)
        except ValidationError as error:
            raise ValidationError({"name": error.messages}) from None

    def save(self, *args, **kwargs) -> None:
        # The last guard for every creation path: no row is stored under a name with a CR/LF.
        problem = collection_name_problem(self.name)
        if problem is not None:
            raise ValueError(f"refused collection name {str(self.name)[:80]!r}: {problem}")
        super().save(*args, **kwargs)


class Topic(models.Model):
    """An information need: an open-ended request, or a short question with gold answers."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="topics")
    external_id = models.CharField(max_length=200)
    request = models.TextField()
    reference_report = models.TextField(blank=True)
    gold_answers = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    # A new random token whenever rows of this topic that derived values are computed from
    # change (``crux_app.data_version.bump_topics``); 0 until the first such write. Pages keep
    # per-topic values under it and recompute only the topics whose token moved.
    unit_version = models.BigIntegerField(default=0, db_default=0, editable=False)

    objects = TopicQuerySet.as_manager()

    class Meta:
        ordering = ["collection", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["collection", "external_id"], name="uniq_topic_ext_id")
        ]

    def __str__(self) -> str:
        return self.external_id


class SubQuestion(models.Model):
    """One position of a topic's ordered sub-question list.

    CRUX's platform keeps empty positions (``null`` questions); they are stored as placeholders
    so that positional label files round-trip, and every metric skips them.
    """

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="subquestions")
    position = models.PositiveIntegerField()
    text = models.TextField(blank=True)
    is_placeholder = models.BooleanField(default=False)
    reference_answers = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["topic", "position"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "position"], name="uniq_subquestion_position")
        ]

    def __str__(self) -> str:
        return f"{self.topic.external_id}#{self.position}"


class Passage(models.Model):
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="passages")
    external_id = models.CharField(max_length=300)
    text = models.TextField(blank=True)
    has_text = models.BooleanField(default=True)
    token_count = models.PositiveIntegerField(null=True, blank=True)
    token_count_tokenizer = models.CharField(max_length=300, blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["collection", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["collection", "external_id"], name="uniq_passage_ext_id"
            )
        ]

    def __str__(self) -> str:
        return self.external_id


class Run(models.Model):
    """A ranked retrieval run (TREC run file) over the collection's passages."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["collection", "name"]
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="uniq_run_name")]

    def __str__(self) -> str:
        return self.name


class RunEntry(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="entries")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="run_entries")
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="run_entries")
    rank = models.PositiveIntegerField()
    score = models.FloatField()
    # Line order in the source file: the tie-break when a file's ranks are not trustworthy.
    line_order = models.PositiveIntegerField(default=0)

    objects = RunEntryQuerySet.as_manager()

    class Meta:
        ordering = ["run", "topic", "rank", "line_order"]
        constraints = [
            models.UniqueConstraint(fields=["run", "topic", "passage"], name="uniq_run_entry")
        ]
        indexes = [models.Index(fields=["run", "topic", "rank"])]


class GeneratedOutput(models.Model):
    """A generated report or short answer, with the passages it was generated from."""

    class Kind(models.TextChoices):
        REPORT = "report", "Report"
        ANSWER = "answer", "Answer"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="outputs")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="outputs")
    external_id = models.CharField(max_length=300)
    system = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.REPORT)
    text = models.TextField()
    generator = models.CharField(max_length=300, blank=True)
    context_type = models.CharField(max_length=100, blank=True)
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL)
    passages = models.ManyToManyField(Passage, through="OutputContext", related_name="outputs")
    # Token strings and log-probs when the app generated it (SePer and SCAAR need them).
    tokens = models.JSONField(default=list, blank=True)
    token_logprobs = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["collection", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["collection", "external_id"], name="uniq_output_ext_id")
        ]

    def __str__(self) -> str:
        return self.external_id


class OutputContext(models.Model):
    output = models.ForeignKey(GeneratedOutput, on_delete=models.CASCADE, related_name="context")
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["output", "position"]
        constraints = [
            models.UniqueConstraint(fields=["output", "position"], name="uniq_output_ctx_pos")
        ]
