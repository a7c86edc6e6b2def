"""What an ensemble judge is and whether it is stale, for every page that lists judges.

An ensemble (``models.JudgeEnsemble``) is built per collection by ``manage.py ensemble_judge``;
a build records a fingerprint of each member's labels there (counts, sums, latest update). A
member whose fingerprint differs now (or that was deleted) makes the ensemble stale: its stored
labels no longer combine the member's current ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, F, Max, Sum

from crux_app.models import (
    Collection,
    EnsembleBuild,
    Judge,
    JudgeEnsemble,
    Judgment,
    PassageQrel,
)


def describe(combiner: str, members: list[str], min_members: int) -> str:
    """A one-line description: ``mean of A, B`` (plus the rule for partly labelled items)."""
    text = f"{combiner} of {', '.join(members)}"
    if min_members < len(members):
        text += f" (items labelled by at least {min_members})"
    return text


@dataclass(frozen=True)
class EnsembleStatus:
    """What an ensemble judge is, as the pages list it."""

    name: str
    combiner: str
    members: list[str]
    min_members: int
    description: str
    built_at: datetime | None  # in this collection; None: never built here
    stale_members: list[str]  # members whose labels changed (or vanished) since the build

    @property
    def stale(self) -> bool:
        return bool(self.stale_members) or self.built_at is None

    @property
    def warning(self) -> str:
        if self.built_at is None:
            return f"ensemble {self.name!r} was never built in this collection"
        if not self.stale_members:
            return ""
        names = ", ".join(self.stale_members)
        return (
            f"ensemble {self.name!r} is stale: the labels of {names} changed after it was built "
            f"({self.built_at:%Y-%m-%d %H:%M}); re-run manage.py ensemble_judge to refresh it"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "combiner": self.combiner,
            "members": list(self.members),
            "min_members": self.min_members,
            "description": self.description,
            "built_at": self.built_at.isoformat(timespec="seconds") if self.built_at else None,
            "stale_members": list(self.stale_members),
            "warning": self.warning,
        }


def fingerprint(collection: Collection, judge: Judge) -> dict[str, object]:
    """A cheap summary of the judge's labels in the collection that changes when they do."""
    judgments = Judgment.objects.filter(topic__collection=collection, judge=judge).aggregate(
        n=Count("pk"),
        rated=Count("rating"),
        total=Sum("rating"),
        # Position-weighted, so moving a rating between items changes it too.
        weighted=Sum(F("rating") * (F("subquestion_id") % 1013 + F("id") % 1009)),
        updated=Max("updated_at"),
    )
    qrels = PassageQrel.objects.filter(topic__collection=collection, source=judge.name).aggregate(
        n=Count("pk"), total=Sum("grade"), weighted=Sum(F("grade") * (F("passage_id") % 1009 + 1))
    )
    updated = judgments.pop("updated")
    return {
        "judgments": judgments,
        "updated": updated.isoformat() if updated else None,
        "qrels": qrels,
    }


def ensemble_statuses(
    collection: Collection, names: Iterable[str] | None = None
) -> dict[str, EnsembleStatus]:
    """name -> status of the ensembles among ``names`` (default: those built in the collection
    or with labels there)."""
    ensembles = JudgeEnsemble.objects.select_related("judge")
    if names is None:
        ensembles = ensembles.filter(builds__collection=collection).distinct()
    else:
        ensembles = ensembles.filter(judge__name__in=list(names))
    out: dict[str, EnsembleStatus] = {}
    for ensemble in ensembles:
        members = list(ensemble.members.select_related("judge"))
        build = EnsembleBuild.objects.filter(ensemble=ensemble, collection=collection).first()
        stale: list[str] = []
        if build is not None:
            present = {m.judge.name: m.judge for m in members}
            for member, then in build.member_fingerprints.items():
                judge = present.get(member)
                if judge is None or fingerprint(collection, judge) != then:
                    stale.append(member)
        names_ = [m.judge.name for m in members]
        out[ensemble.judge.name] = EnsembleStatus(
            name=ensemble.judge.name,
            combiner=ensemble.combiner,
            members=names_,
            min_members=ensemble.min_members,
            description=describe(ensemble.combiner, names_, ensemble.min_members),
            built_at=build.built_at if build else None,
            stale_members=stale,
        )
    return out
