"""What the review workspace shows of an item: its candidate labels as options A, B, C in the
item's shuffled order, in words, with the rationales given for each; the judges' names only
when the campaign chose "see sources" (blind by default)."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.labels.item_ref import Label
from annotation.models import ReviewCampaign, ReviewItem
from annotation.review.campaigns import OPTION_LETTERS
from annotation.task_types.registry import TASK_TYPE_REGISTRY


@dataclass(frozen=True)
class Option:
    letter: str
    label: Label
    text: str
    rationales: tuple[str, ...]
    judges: tuple[str, ...]  # empty in blind review


def label_text(task_type: str, label: Label) -> str:
    """A label in words, as the reviewer reads it (``TaskType.review_labels``)."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    return entry.label_words(label) if entry else str(label)


def options(campaign: ReviewCampaign, item: ReviewItem) -> list[Option]:
    return [
        Option(
            letter=OPTION_LETTERS[i],
            label=c["label"],
            text=label_text(campaign.task_type, c["label"]),
            rationales=tuple(c.get("rationales", ())),
            judges=tuple(c["judges"]) if campaign.show_sources else (),
        )
        for i, c in enumerate(item.candidates)
    ]


def other_label_hint(task_type: str) -> str:
    """The labels a reviewer may type (``TaskType.review_hint``)."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    return entry.labels_hint() if entry else ""
