"""A campaign: one task type over items picked from a collection, with overlap, caps and QC."""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, F, Q, Sum

from annotation.task_types.registry import TASK_TYPE_REGISTRY, item_kind_choices, task_type_choices


class CampaignQuerySet(models.QuerySet):
    def for_annotator(self, user: models.Model) -> CampaignQuerySet:
        """Campaigns the account was invited to (Prolific arrivals are invited on arrival)."""
        return self.filter(invited=user)

    def visible_to(self, who: object, *, write: bool = False) -> CampaignQuerySet:
        """The campaigns of the collections ``who`` may see (``write``: change); annotators
        reach theirs through ``for_annotator``."""
        return self.filter(collection__in=visible_collections(who, write=write))


def visible_collections(who: object, *, write: bool = False) -> models.QuerySet:
    """``Collection.objects.visible_to`` (looked up by name: the annotation tables stand below
    ``crux_app``'s models in no import)."""
    return apps.get_model("crux_app", "Collection").objects.visible_to(who, write=write)


class Campaign(models.Model):
    class State(models.TextChoices):
        OPEN = "open", "Open"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    class QCAction(models.TextChoices):
        WARN = "warn", "Warn (flag the annotator on the progress page)"
        BLOCK = "block", "Block (stop handing the annotator items)"

    class AssignmentPolicy(models.TextChoices):
        # See annotation/queue/queue.py. With overlap 1 both policies hand out items the same way.
        OVERLAP_FIRST = "overlap_first", "Complete overlap first (for agreement)"
        COVERAGE_FIRST = "coverage_first", "Cover every item once first"

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=80, unique=True)
    collection = models.ForeignKey(
        "crux_app.Collection", on_delete=models.CASCADE, related_name="campaigns"
    )
    task_type = models.CharField(max_length=32, choices=task_type_choices)
    guidelines_md = models.TextField("guidelines (Markdown)", blank=True)
    overlap = models.PositiveSmallIntegerField(
        "annotators per item", default=2, validators=[MinValueValidator(1)]
    )
    per_annotator_cap = models.PositiveIntegerField(
        "items per annotator (cap)",
        null=True,
        blank=True,
        help_text="Empty for no cap. Gold items and attention checks come on top of it.",
    )
    assignment_policy = models.CharField(
        max_length=16,
        choices=AssignmentPolicy.choices,
        default=AssignmentPolicy.OVERLAP_FIRST,
        help_text=(
            "Complete overlap first: an item someone labelled and that still needs labels comes "
            "before an untouched one, so agreement can be measured early. Cover every item once "
            "first: untouched items first."
        ),
    )
    reservation_seconds = models.PositiveIntegerField(
        default=900,
        validators=[MinValueValidator(1)],
        help_text="How long an item handed out stays reserved for its annotator.",
    )
    state = models.CharField(max_length=8, choices=State.choices, default=State.OPEN)
    # Quality control: gold items and attention checks are shown to every annotator, one after
    # every `control_interval` ordinary items.
    control_interval = models.PositiveSmallIntegerField(
        default=5, validators=[MinValueValidator(1)]
    )
    gold_min_accuracy = models.FloatField(
        default=0.7, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    gold_tolerance = models.PositiveSmallIntegerField(
        default=1, help_text="Rating points a 0-5 answer may differ from gold and still count."
    )
    attention_min_pass_rate = models.FloatField(
        default=1.0, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    qc_min_answers = models.PositiveSmallIntegerField(
        default=1,
        help_text="Gold (or attention) answers needed before that threshold is applied.",
    )
    qc_action = models.CharField(max_length=8, choices=QCAction.choices, default=QCAction.WARN)
    # Crowd control (annotation/crowd/control.py). Until confident: once an item has
    # `overlap` labels it is closed when its aggregated label's confidence reaches the target,
    # else offered first to the next annotator, up to `max_labels_per_item` labels.
    until_confident = models.BooleanField(
        "until confident",
        default=False,
        help_text="Spend labels where they are needed: after 'annotators per item' labels, an "
        "item whose aggregated label is below the confidence target is offered first to the "
        "next annotator, up to the cap of labels per item; a confident item gets no more.",
    )
    confidence_target = models.FloatField(
        default=0.75,
        validators=[MinValueValidator(0.5), MaxValueValidator(1.0)],
        help_text="Until confident: the aggregated label's confidence (its share of the "
        "item's labels) at which an item needs no more labels.",
    )
    max_labels_per_item = models.PositiveSmallIntegerField(
        "cap of labels per item",
        default=5,
        validators=[MinValueValidator(1)],
        help_text="Until confident: the most labels an item gets.",
    )
    qualification_items = models.PositiveSmallIntegerField(
        "qualification test (gold items)",
        default=0,
        help_text="Gold items every annotator answers first; 0: no test. An annotator below "
        "the accuracy threshold after them gets no items (and is sent to the end page).",
    )
    qualification_min_accuracy = models.FloatField(
        "qualification threshold",
        default=0.8,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
    )
    skill_floor = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Stop annotators whose estimated skill (a crowd model of this campaign's "
        "labels) falls below this from taking new items; empty: no floor.",
    )
    skill_floor_min_labels = models.PositiveSmallIntegerField(
        "labels before the skill floor applies", default=10, validators=[MinValueValidator(1)]
    )
    prolific_enabled = models.BooleanField(default=False)
    prolific_completion_code = models.CharField(max_length=100, blank=True)
    prolific_redirect_url = models.URLField(
        blank=True, help_text="e.g. https://app.prolific.com/submissions/complete?cc=CODE"
    )
    # The study link is guessable (a slug): only arrivals whose STUDY_ID is this study's are
    # taken, and none before it is set (annotation/prolific/admission.py).
    prolific_study_id = models.CharField(
        "Prolific study id",
        max_length=24,
        blank=True,
        help_text="The study's id on Prolific (24 hexadecimal characters, its STUDY_ID). "
        "Arrivals are refused until it is set, and from any other study.",
    )
    prolific_places = models.PositiveIntegerField(
        "Prolific places",
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Most Prolific participants this campaign takes. Empty: its items x overlap "
        "(every participant gets at least one item). Leave room for returned submissions.",
    )
    invited = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="invited_campaigns"
    )
    # TREC 2024's post-editing: annotators see this machine judge's label of each item
    # pre-filled and change it where they disagree. Null: blind (the default).
    suggestion_judge = models.ForeignKey(
        "crux_app.Judge",
        null=True,
        blank=True,
        # A post-editing campaign's record keeps the judge its annotators saw.
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name="post-edit suggestions from",
        help_text="Post-editing (not blind): each item opens pre-filled with this machine "
        "judge's label, which annotators keep or change. Their labels are then kept apart from "
        "blind human labels. Leave empty for a blind campaign (the default).",
    )
    # How the items were picked (mode, sample size, seed, judge, threshold), for the record.
    selection = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_campaigns",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CampaignQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One campaign per Prolific study: its participants are the study's.
            models.UniqueConstraint(
                fields=["prolific_study_id"],
                condition=~Q(prolific_study_id=""),
                name="campaign_unique_prolific_study",
                violation_error_message="Another campaign already runs this Prolific study.",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN

    @property
    def is_post_editing(self) -> bool:
        """Annotators see a machine judge's suggestion: the campaign is not blind."""
        return self.suggestion_judge_id is not None


class CampaignItemQuerySet(models.QuerySet):
    def regular(self) -> CampaignItemQuerySet:
        return self.filter(is_control=False)

    def controls(self) -> CampaignItemQuerySet:
        return self.filter(is_control=True)

    def progress_summary(self, overlap: int) -> dict[str, int]:
        """Counts of regular items: total, complete (overlap reached), started, untouched, and
        the labels submitted and reservations held."""
        regular = self.regular()
        totals = regular.aggregate(
            items=Count("pk"),
            complete=Count("pk", filter=Q(annotations_done__gte=overlap)),
            started=Count("pk", filter=Q(annotations_done__gt=0, annotations_done__lt=overlap)),
            untouched=Count("pk", filter=Q(annotations_done=0)),
            labels=Sum("annotations_done", default=0),
            reserved=Sum("reserved_count", default=0),
        )
        return {k: v or 0 for k, v in totals.items()}


class CampaignItem(models.Model):
    """One thing to label, with a snapshot of what the annotator sees.

    ``payload`` is the item as shown (texts copied when the campaign was made), so later
    edits of the collection never change what was labelled. The foreign keys say which
    sub-question / passage / output / topic it is, for mirroring labels into judgments and for
    exports; attention checks have none.
    """

    class Kind(models.TextChoices):
        # The other kinds are the registered task types (``item_kind_choices``).
        ATTENTION = "attention", "Attention check"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=32, choices=item_kind_choices)
    topic = models.ForeignKey(
        "crux_app.Topic", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    subquestion = models.ForeignKey(
        "crux_app.SubQuestion", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    passage = models.ForeignKey(
        "crux_app.Passage", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    output = models.ForeignKey(
        "crux_app.GeneratedOutput",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    # Task 4: the semi-gold answer the RAG answer is compared with.
    reference_output = models.ForeignKey(
        "crux_app.GeneratedOutput",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    payload = models.JSONField(default=dict)
    is_gold = models.BooleanField(default=False)
    gold_answer = models.JSONField(null=True, blank=True)
    is_attention_check = models.BooleanField(default=False)
    expected_answer = models.JSONField(null=True, blank=True)
    # Counters kept by the queue: submitted labels, and reservations not yet released.
    annotations_done = models.PositiveIntegerField(default=0)
    reserved_count = models.PositiveIntegerField(default=0)
    # The aggregated label's confidence (its share of the item's labels), kept by submission
    # for the until-confident queue; null before the first label.
    confidence = models.FloatField(null=True, blank=True)
    load = models.GeneratedField(
        expression=F("annotations_done") + F("reserved_count"),
        output_field=models.IntegerField(),
        db_persist=True,
    )
    is_control = models.GeneratedField(
        expression=Q(is_gold=True) | Q(is_attention_check=True),
        output_field=models.BooleanField(),
        db_persist=True,
    )

    objects = CampaignItemQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "id"]
        indexes = [
            # The queue's scan: a campaign's items, least loaded first.
            models.Index(fields=["campaign", "is_control", "load", "id"], name="item_queue_idx"),
            # "Complete overlap first": started items, most labelled first.
            models.Index(
                fields=["campaign", "is_control", "-annotations_done", "load", "id"],
                name="item_overlap_queue_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign_id}/{self.pk}"

    @property
    def short_label(self) -> str:
        """What the item is, for researcher tables (``topic #position · passage``)."""
        entry = TASK_TYPE_REGISTRY.get(self.kind)
        if entry is not None:
            return entry.item_label(self.payload)
        return f"attention check {self.payload.get('topic', '')}"
