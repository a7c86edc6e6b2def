"""Judgments of a collection as item x rater label tables, one per comparison source (the
``ComparisonSource`` a table holds is defined here; its registry is ``sources``).

A source's loader (registered by a method) fills a ``LabelTable``: items x raters, humans and
machines, with the raters, the campaign scope and the unparsable counts; the report applies the
statistics of the source's scale to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from django.db.models import Exists, OuterRef, Q, QuerySet

from annotation.labels.post_editing import post_edit_judge_name
from annotation.models import Assignment, Campaign, CampaignItem
from crux_app.inputs import EvaluationInputError
from crux_app.models import Collection, Judge, Judgment, Topic

if TYPE_CHECKING:
    from evaluation.agreement.method.bootstrap import Bootstrap
    from evaluation.agreement.report_rows import CoveragePoint, Record

HUMAN = Judge.Kind.HUMAN.value
# People who saw a machine judge's suggestion (a post-editing campaign): not blind, so neither
# a human reference nor a machine; their own section compares them with the machines.
POST_EDITED = Judge.Kind.POST_EDITED.value


@dataclass(frozen=True)
class Rater:
    id: int
    name: str
    kind: str  # "human", "post_edited", "llm" (or another machine kind of a later source)
    model_id: str = ""
    prompt_version: str = ""
    user_id: int | None = None  # the account of an annotator who labelled in campaigns

    @property
    def is_human(self) -> bool:
        """A blind human label (post-edited labels are not)."""
        return self.kind == HUMAN

    @property
    def is_post_edited(self) -> bool:
        return self.kind == POST_EDITED

    @property
    def is_machine(self) -> bool:
        return not self.is_human and not self.is_post_edited

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "model_id": self.model_id,
            "prompt_version": self.prompt_version,
        }


@dataclass(frozen=True)
class CampaignScope:
    """Which campaign's judgments to use; ``applied`` is False when it cannot be filtered."""

    name: str | None = None
    applied: bool = False
    note: str | None = None
    campaign_id: int | None = None
    task_type: str | None = None
    annotator_ids: tuple[int, ...] = ()
    post_edit_judges: tuple[str, ...] = ()  # a post-editing campaign's annotators' judges

    def restrict(self, judgments: QuerySet) -> QuerySet:
        """The campaign's items only: its annotators' labels (mirrored as judgments) and the
        LLM judges' labels of the same items."""
        if not self.applied:
            return judgments
        items = CampaignItem.objects.filter(campaign_id=self.campaign_id, is_attention_check=False)
        passage = items.filter(
            subquestion_id=OuterRef("subquestion_id"), passage_id=OuterRef("passage_id")
        )
        report = items.filter(kind="report_coverage", output_id=OuterRef("output_id"))
        who = Q(judge__kind=Judge.Kind.LLM) | Q(judge__user_id__in=self.annotator_ids)
        if self.post_edit_judges:
            who = Q(judge__kind=Judge.Kind.LLM) | Q(judge__name__in=self.post_edit_judges)
        return judgments.filter(Exists(passage) | Exists(report)).filter(who)


def collection_campaigns(collection: Collection) -> list[tuple[str, str]]:
    """(slug, name) of the collection's campaigns, by name: the page's campaign choices."""
    campaigns = Campaign.objects.filter(collection=collection).order_by("name")
    return list(campaigns.values_list("slug", "name"))


def campaign_scope(collection: Collection, name: str | None) -> CampaignScope:
    """The campaign called ``name`` (or with that slug) in the collection."""
    if name is None:
        return CampaignScope()
    campaigns = Campaign.objects.filter(collection=collection)
    campaign = campaigns.filter(Q(name=name) | Q(slug=name)).first()
    if campaign is None:
        listing = ", ".join(repr(c) for c in campaigns.values_list("name", flat=True)) or "none"
        raise EvaluationInputError(
            f"campaign {name!r} does not exist in collection {collection.name!r}; "
            f"campaigns there: {listing}"
        )
    people = (
        Assignment.objects.submitted()
        .filter(campaign=campaign)
        .order_by()
        .values_list("annotator_id", "annotator__username")
        .distinct()
    )
    annotators = tuple(pk for pk, _ in people)
    note = (
        f"campaign {campaign.name!r}: the labels of its {len(annotators)} annotator(s) on its "
        "items, and the LLM judges' labels of the same items (a person who labelled an item "
        "again in another campaign counts with the latest label)"
    )
    post_edit_judges: tuple[str, ...] = ()
    if campaign.is_post_editing:
        post_edit_judges = tuple(
            post_edit_judge_name(name) for _, name in people.order_by("annotator__username")
        )
        note += (
            f"; a post-editing campaign: its annotators saw {campaign.suggestion_judge.name}'s "
            "labels as suggestions, so their labels are post-edited, not blind"
        )
    return CampaignScope(
        campaign.name,
        True,
        note,
        campaign.pk,
        campaign.task_type,
        annotators,
        post_edit_judges,
    )


@dataclass(frozen=True)
class LabelQuery:
    collection: Collection
    raters: tuple[Rater, ...]
    tau: float
    campaign: CampaignScope = field(default_factory=CampaignScope)


@dataclass(frozen=True)
class LabelTable:
    """Items x raters; ``ratings`` and ``times`` hold NaN where a rater gave no label."""

    source: ComparisonSource
    raters: tuple[Rater, ...]
    topic_id: np.ndarray  # (n,)
    subquestion_id: np.ndarray  # (n,)
    item_id: np.ndarray  # (n,) passage or output pk
    item_kind: str  # "passage" or "output"
    ratings: np.ndarray  # (n, R)
    times: np.ndarray  # (n, R) milliseconds
    unparsable: dict[str, int]  # rater name -> unparsable outputs left out
    binarised: dict[str, float]  # rater name -> tau its 0-5 ratings were cut at

    @property
    def n_items(self) -> int:
        return len(self.item_id)

    def humans(self) -> list[int]:
        return [i for i, r in enumerate(self.raters) if r.is_human]

    def machines(self) -> list[int]:
        return [i for i, r in enumerate(self.raters) if r.is_machine]

    def post_edited(self) -> list[int]:
        return [i for i, r in enumerate(self.raters) if r.is_post_edited]

    def frame(self) -> pd.DataFrame:
        """The ratings as a DataFrame indexed by (subquestion_id, item_id), one column per
        rater name."""
        index = pd.MultiIndex.from_arrays(
            [self.subquestion_id, self.item_id], names=["subquestion_id", "item_id"]
        )
        return pd.DataFrame(self.ratings, index=index, columns=[r.name for r in self.raters])


# (collection, table, tau, bootstrap) -> (records, per-output points)
DerivedFigures = Callable[
    ["Collection", "LabelTable", float, "Bootstrap"], tuple[list["Record"], list["CoveragePoint"]]
]


class Scale(StrEnum):
    """How labels are compared: binary (0/1), nominal categories, ordinal 0-5 ratings."""

    BINARY = "binary"
    NOMINAL = "nominal"
    ORDINAL = "ordinal"


# What each 0/1 class means in CRUX's own table ("answerable" is r >= tau).
BINARY_CLASSES = ((1.0, "answerable"), (0.0, "unanswerable"))
RATING_CATEGORIES = tuple(float(r) for r in range(6))


@dataclass(frozen=True)
class ComparisonSource:
    key: str
    title: str  # what was judged, for people who never opened the app
    scale: Scale
    machine: str  # what the humans are compared with
    categories: tuple[float, ...]
    class_names: tuple[tuple[float, str], ...]
    loader: Callable[[LabelQuery, ComparisonSource], LabelTable] | None = None
    unavailable: str | None = None  # why there is no loader yet
    # Figures a method derives from the table beyond item agreement (CRUX: report coverage
    # by humans vs by each judge), with the definition the report prints beside them.
    derived: DerivedFigures | None = None
    derived_definition: str | None = None
    # The method's pages a disagreement drills down to (URL names taking the collection's
    # and the topic's pk): the topic's page of the item, and a passage item's cell panel.
    topic_url_name: str | None = None
    cell_url_name: str | None = None

    @property
    def available(self) -> bool:
        return self.loader is not None


def collection_raters(collection: Collection) -> list[Rater]:
    """Judges with judgments in the collection, by name."""
    # EXISTS per judge stops at its first judgment in the collection (the (judge, topic) index);
    # counting them all, as Judge.objects.for_collection does, read every row (0.1 s at 100k).
    topics = Topic.objects.filter(collection_id=collection.pk).values("pk")
    judged = Judgment.objects.filter(judge_id=OuterRef("pk"), topic_id__in=topics)
    return [
        Rater(j.pk, j.name, j.kind, j.model_id, j.prompt_version, j.user_id)
        for j in Judge.objects.filter(Exists(judged)).order_by("name")
    ]


def resolve_raters(collection: Collection, names: list[str] | tuple[str, ...] = ()) -> list[Rater]:
    """The judges to analyse. Naming LLM judges restricts the LLM side to them; naming human
    judges restricts the human side, naming post-edited ones the post-edited side; a side with
    no name given keeps every judge."""
    known = collection_raters(collection)
    by_name = {r.name: r for r in known}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        listing = ", ".join(repr(r.name) for r in known) or "none"
        raise EvaluationInputError(
            f"judge {unknown[0]!r} has no judgments in collection {collection.name!r}; "
            f"judges there: {listing}"
        )
    named = [by_name[n] for n in dict.fromkeys(names)]
    humans = [r for r in named if r.is_human] or [r for r in known if r.is_human]
    machines = [r for r in named if r.is_machine] or [r for r in known if r.is_machine]
    edited = [r for r in named if r.is_post_edited] or [r for r in known if r.is_post_edited]
    return sorted(humans + edited + machines, key=lambda r: (r.is_human, r.is_post_edited, r.name))
