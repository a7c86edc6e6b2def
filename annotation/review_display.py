"""What the review workspace shows of an item: its candidate labels as options A, B, C in the
item's shuffled order, in words, with the rationales given for each; the judges' names only
when the campaign chose "see sources" (blind by default)."""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.vocabulary import FAILURE_CATEGORIES, RUBRIC_LEVELS

from .models import ReviewCampaign, ReviewItem
from .review_campaigns import OPTION_LETTERS
from .review_queue import Label
from .task_type_registry import TASK_TYPE_REGISTRY
from .task_types import ANSWER_EQUIVALENCE, FAILURE_CATEGORY, PASSAGE_RATING, REPORT_COVERAGE

RUBRIC = {level.rating: level.text for level in RUBRIC_LEVELS}


@dataclass(frozen=True)
class Option:
    letter: str
    label: Label
    text: str
    rationales: tuple[str, ...]
    judges: tuple[str, ...]  # empty in blind review


def label_text(task_type: str, label: Label) -> str:
    """A label in words, as the reviewer reads it."""
    if task_type == PASSAGE_RATING:
        return f"{label} — {RUBRIC.get(int(label), '')}"
    if task_type == REPORT_COVERAGE:
        return "answerable (1)" if int(label) else "not answerable (0)"
    if task_type == ANSWER_EQUIVALENCE:
        return "equivalent (1)" if int(label) else "not equivalent (0)"
    if task_type == FAILURE_CATEGORY:
        return f"{label}: {FAILURE_CATEGORIES.get(str(label), '')}"
    entry = TASK_TYPE_REGISTRY.get(task_type)
    return entry.review_labels.get(str(label), str(label)) if entry else str(label)


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
    return {
        PASSAGE_RATING: "0-5",
        REPORT_COVERAGE: "0 or 1",
        ANSWER_EQUIVALENCE: "0 or 1",
        FAILURE_CATEGORY: "A-F",
    }.get(task_type) or " / ".join(_declared_labels(task_type))


def _declared_labels(task_type: str) -> list[str]:
    """The labels a declared task type lets a reviewer give (``TaskType.review_labels``)."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    return list(entry.review_labels) if entry else []
