"""Review campaigns: disagreements put before reviewers, and the decisions they take.

A review campaign is made once from a disagreement queue (``annotation/review/selection.py``);
its items are snapshots (the texts and the candidate labels as they were), so later labels never
change what was reviewed. Its decisions are also written as judgments of the campaign's own
judge of kind ``adjudicated`` (tasks 1 and 2), so every page that reads a judge reads them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.campaign import visible_collections
from annotation.task_types.registry import task_type_choices

# The disagreement queue's choices (``annotation/review/queue.py`` picks items by them): which
# pairs of judges count, and how the disagreements are sampled.
ANY = "any"
ANNOTATORS = "annotators"
ANNOTATOR_MACHINE = "annotator_machine"
MACHINES = "machines"
KINDS: dict[str, str] = {
    ANY: "Any two of the chosen judges",
    ANNOTATORS: "Among annotators (people)",
    ANNOTATOR_MACHINE: "Annotators vs a machine judge",
    MACHINES: "Between machine judges",
}

ALL = "all"
RANDOM = "random"
STRATIFIED = "stratified"
LARGEST_GAP = "largest_gap"
SAMPLINGS: dict[str, str] = {
    ALL: "Every disagreement",
    RANDOM: "Random sample (unbiased estimates)",
    STRATIFIED: "Stratified by topic (equal share per topic)",
    LARGEST_GAP: "Largest gaps first",
}


class ReviewCampaignQuerySet(models.QuerySet):
    def visible_to(self, who: object, *, write: bool = False) -> ReviewCampaignQuerySet:
        """The review campaigns of the collections ``who`` may see (``write``: change);
        reviewers reach theirs through ``reviewers``."""
        return self.filter(collection__in=visible_collections(who, write=write))


class ReviewCampaign(models.Model):
    class State(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=80, unique=True)
    collection = models.ForeignKey(
        "crux_app.Collection", on_delete=models.CASCADE, related_name="review_campaigns"
    )
    task_type = models.CharField(max_length=32, choices=task_type_choices)
    kind = models.CharField(max_length=32, choices=list(KINDS.items()), default="any")
    sampling = models.CharField(max_length=16, choices=list(SAMPLINGS.items()), default="all")
    # Blind by default: the reviewer sees anonymous options A, B, C; naming who gave each label
    # is the campaign's explicit choice.
    show_sources = models.BooleanField(
        "see sources",
        default=False,
        help_text="Show which judge gave each candidate label (off: blind review).",
    )
    guidelines_md = models.TextField("guidelines (Markdown)", blank=True)
    # The queue choices the items were made from (judges, topics, gap, sample size, seed).
    selection = models.JSONField(default=dict, blank=True)
    n_disagreements = models.PositiveIntegerField(default=0)  # in the queue before sampling
    state = models.CharField(max_length=8, choices=State.choices, default=State.OPEN)
    reviewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="review_campaigns"
    )
    judge = models.OneToOneField(
        "crux_app.Judge",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="review_campaign",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_review_campaigns",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ReviewCampaignQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN


class ReviewItem(models.Model):
    """One disagreement: the item as shown, its candidate labels in the order the reviewer
    sees them (shuffled per item), and the judges' labels for the record."""

    campaign = models.ForeignKey(ReviewCampaign, on_delete=models.CASCADE, related_name="items")
    key = models.CharField(max_length=700)
    topic = models.ForeignKey("crux_app.Topic", on_delete=models.CASCADE, related_name="+")
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
    position = models.PositiveIntegerField()  # the order reviewers get the items in
    gap = models.FloatField(default=0.0)
    # P(in the sample | a disagreement): weights estimates over a stratified sample.
    inclusion = models.FloatField(default=1.0)
    labels = models.JSONField(default=dict)  # judge name -> label
    # [{"label": x, "judges": [names], "rationales": [texts]}], option A first.
    candidates = models.JSONField(default=list)
    payload = models.JSONField(default=dict)

    class Meta:
        ordering = ["campaign", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "key"], name="uniq_review_item"),
        ]

    def __str__(self) -> str:
        return f"{self.campaign_id}/{self.key}"


class ReviewDecision(models.Model):
    """A reviewer's decision on one item: the label (one of the candidates, or another), the
    option letter when it was a candidate, and a note. One per item: a second decision of the
    same item (a double submit, a second reviewer) is refused, never overwrites the first."""

    item = models.OneToOneField(ReviewItem, on_delete=models.CASCADE, related_name="decision")
    campaign = models.ForeignKey(ReviewCampaign, on_delete=models.CASCADE, related_name="decisions")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="review_decisions"
    )
    label = models.JSONField()
    option = models.CharField(max_length=1, blank=True)  # "" when no candidate was chosen
    note = models.TextField(blank=True)
    time_spent_ms = models.PositiveIntegerField(null=True, blank=True)
    decided_at = models.DateTimeField()

    class Meta:
        ordering = ["campaign", "decided_at", "id"]

    def __str__(self) -> str:
        return f"{self.item_id}: {self.label}"
