"""Ensemble judges: a Judge of kind ``ensemble`` whose labels are combined from its members'.

The combined labels are stored as ordinary rows (judgments, passage qrels whose source is the
ensemble's name), so every page that reads a judge reads an ensemble unchanged. These rows
record what it combines and, per collection, when it was built and what its members' labels
looked like then (to tell when a member changed afterwards).
"""

from django.db import models

from .collection import Collection
from .judgment import Judge


class JudgeEnsemble(models.Model):
    class Combiner(models.TextChoices):
        MEAN = "mean", "mean (rounded half up)"
        MEDIAN = "median", "median (rounded half up)"
        MAJORITY = "majority", "majority (ties to the lower rating)"
        MAX = "max", "max"

    judge = models.OneToOneField(Judge, on_delete=models.CASCADE, related_name="ensemble")
    combiner = models.CharField(max_length=8, choices=Combiner.choices)
    # An item gets a label only where at least this many members labelled it.
    min_members = models.PositiveSmallIntegerField()

    def __str__(self) -> str:
        return self.judge.name


class JudgeEnsembleMember(models.Model):
    ensemble = models.ForeignKey(JudgeEnsemble, on_delete=models.CASCADE, related_name="members")
    # A member judge deleted later takes its membership row with it; the build's fingerprint
    # still names it, so the ensemble shows as stale.
    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="ensemble_memberships")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["ensemble", "judge"], name="uniq_ensemble_member"),
        ]


class EnsembleBuild(models.Model):
    """One materialisation of an ensemble's labels in one collection."""

    ensemble = models.ForeignKey(JudgeEnsemble, on_delete=models.CASCADE, related_name="builds")
    collection = models.ForeignKey(
        Collection, on_delete=models.CASCADE, related_name="ensemble_builds"
    )
    built_at = models.DateTimeField()
    # member name -> a summary of its labels in the collection at build time (counts, sums,
    # latest update): compared with the current summary to flag a stale ensemble.
    member_fingerprints = models.JSONField(default=dict)
    counts = models.JSONField(default=dict)  # labels written, by kind

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ensemble", "collection"], name="uniq_ensemble_build"),
        ]
