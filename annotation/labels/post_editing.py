"""Post-editing campaigns (TREC 2024): annotators see a machine judge's label of each item
pre-filled and change it where they disagree, so their labels are not blind.

The suggestion is the judge's answer read through the task type's ``judge_answers`` and shown
through ``answer_to_draft``, the path an undone answer takes back into the form, so every task
type that can read a judge's labels can be post-edited. The answer the item opened with is kept
on the assignment; a submit records whether its label was kept (``score`` of 1 at tolerance 0:
the exact human-LLM match TREC reports). Labels are mirrored under the annotator's post-edit
judge (``user:<name>+post-edit``, kind ``post_edited``), never their blind human judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q

from annotation.models import Assignment, Campaign
from annotation.task_types.answers import answer_to_draft
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.models import Judge

POST_EDIT_SUFFIX = "+post-edit"
# The kinds whose labels may be shown as suggestions: machines (a person's or a review's labels
# are no machine's suggestion).
SUGGESTING_KINDS = (Judge.Kind.LLM, Judge.Kind.ENSEMBLE)
NOT_BLIND = "this campaign is not blind"


def post_edit_judge_name(username: str) -> str:
    """``user:<username>+post-edit``: the judge of a person's post-edited labels."""
    return f"user:{username}{POST_EDIT_SUFFIX}"


def post_edit_judge(user: AbstractBaseUser) -> Judge:
    """The annotator's post-edit judge, created on their first post-edited label (no ``user``
    link: ``Judge.user`` is one-to-one and belongs to their blind judge)."""
    judge, _ = Judge.objects.get_or_create(
        name=post_edit_judge_name(user.get_username()), defaults={"kind": Judge.Kind.POST_EDITED}
    )
    if judge.kind != Judge.Kind.POST_EDITED:
        raise ValueError(
            f"judge {judge.name!r} exists with kind {judge.kind!r}; rename it to keep "
            "post-edited labels apart"
        )
    return judge


def can_post_edit(task_type: str) -> bool:
    """Whether a task type can show a judge's labels as suggestions (its ``judge_answers``)."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    return entry is not None and entry.judge_answers is not None


def notice(campaign: Campaign) -> str:
    """What the workspace and the campaign page say of a post-editing campaign ("" if blind)."""
    if not campaign.is_post_editing:
        return ""
    return (
        f"Post-editing: the suggestion shown is {campaign.suggestion_judge.name}'s label; "
        f"{NOT_BLIND}."
    )


def suggestion_for(campaign: Campaign, assignment: Assignment) -> dict | None:
    """The judge's answer the item opens with (None: blind campaign, attention check, or no
    label of the judge), kept on the assignment the first time it is read."""
    if not campaign.is_post_editing or assignment.item.is_attention_check:
        return None
    if assignment.suggestion is not None:
        return assignment.suggestion
    entry = TASK_TYPE_REGISTRY.get(campaign.task_type)
    if entry is None or entry.judge_answers is None:
        return None
    found = entry.judge_answers([assignment.item], campaign.suggestion_judge).get(
        assignment.item_id
    )
    if found is not None:
        assignment.suggestion = found
        Assignment.objects.filter(pk=assignment.pk, suggestion__isnull=True).update(
            suggestion=found
        )
    return found


def opening_draft(campaign: Campaign, assignment: Assignment) -> dict[str, str]:
    """The form's fields an item opens with: the annotator's own draft, else the suggestion
    (post-editing), else nothing."""
    if assignment.draft:
        return assignment.draft
    suggestion = suggestion_for(campaign, assignment)
    if suggestion is None:
        return {}
    return answer_to_draft(campaign.task_type, suggestion)


def kept(task_type: str, answer: Mapping[str, Any], suggestion: Mapping[str, Any] | None) -> bool:
    """Whether ``answer`` keeps the suggestion's label: an exact match (``score`` 1 at
    tolerance 0; a rationale added to a kept label does not change it)."""
    if suggestion is None:
        return False
    entry = TASK_TYPE_REGISTRY[task_type]
    return entry.score(answer, suggestion, 0) == 1.0


@dataclass(frozen=True)
class KeptShare:
    """Submitted ordinary items of a post-editing campaign that opened with a suggestion:
    how many kept it, how many changed it."""

    kept: int
    changed: int

    @property
    def n(self) -> int:
        return self.kept + self.changed

    @property
    def share(self) -> float | None:
        """Kept / (kept + changed): TREC's exact human-LLM match after post-editing."""
        return self.kept / self.n if self.n else None


def kept_share(campaign: Campaign) -> KeptShare:
    """The campaign's kept and changed suggestions (gold items and attention checks left out:
    they measure the annotators, not the judge)."""
    counts = (
        Assignment.objects.submitted()
        .filter(campaign=campaign, item__is_control=False, kept_suggestion__isnull=False)
        .aggregate(
            kept=Count("pk", filter=Q(kept_suggestion=True)),
            changed=Count("pk", filter=Q(kept_suggestion=False)),
        )
    )
    return KeptShare(counts["kept"] or 0, counts["changed"] or 0)


def post_editing_campaigns(collection_id: int) -> list[tuple[str, str]]:
    """(campaign name, suggestion judge name) of the collection's post-editing campaigns."""
    campaigns = Campaign.objects.filter(
        collection_id=collection_id, suggestion_judge__isnull=False
    ).order_by("name")
    return list(campaigns.values_list("name", "suggestion_judge__name"))
