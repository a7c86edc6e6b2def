"""A campaign over items the caller chose, as its task type's keys (passage rating's:
(topic, sub-question, passage) ids).

Other parts of the app decide *which* items people should label (e.g. the judge report's "label
these next"); this module only checks that the keys are items of the campaign's collection (the
task type's ``check_chosen_keys``, else membership in its ``eligible_keys``) and creates the
campaign with them, in one transaction, through the same pieces as
``campaign_setup.create_campaign`` (bounds, slug, item payloads, attention checks).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation.campaigns.setup import (
    MAX_ITEMS,
    SelectionOptions,
    add_attention_checks,
    add_items,
    check_bounds,
    unique_slug,
)
from annotation.models import Campaign
from annotation.queue.selection import SelectionError
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.models import Collection, Passage, SubQuestion

ItemKey = tuple[int, int, int]  # (topic id, sub-question id, passage id)


def _normal(key: Any) -> Any:
    """A key as the task type's keys are: a tuple of ids, or one id."""
    if isinstance(key, list | tuple):
        return tuple(int(v) for v in key)
    return int(key)


def _check_count(keys: Sequence[Any]) -> None:
    if not keys:
        raise SelectionError("items", "no items were chosen")
    if len(set(keys)) != len(keys):
        raise SelectionError("items", "an item is chosen twice")
    if len(keys) > MAX_ITEMS:
        raise SelectionError("items", f"a campaign holds at most {MAX_ITEMS:,} items")


def _among_eligible(collection: Collection, keys: Sequence[Any], eligible: list[Any]) -> None:
    known = {_normal(k) for k in eligible}
    for key in keys:
        if key not in known:
            raise SelectionError(
                "items", f"{key} is not an item of this task in collection {collection.name!r}"
            )


def check_rating_keys(collection: Collection, keys: Sequence[ItemKey]) -> list[ItemKey]:
    """Passage rating's chosen keys, checked: real sub-questions of their topics, passages
    with text (the judge report may pick pairs no run retrieved)."""
    if any(not isinstance(k, tuple) or len(k) != 3 for k in keys):
        raise SelectionError("items", "a passage-rating item is (topic, sub-question, passage)")
    subquestions = dict(
        SubQuestion.objects.filter(
            pk__in={k[1] for k in keys},
            topic__collection=collection,
            is_placeholder=False,
        ).values_list("pk", "topic_id")
    )
    with_text = set(
        Passage.objects.filter(
            pk__in={k[2] for k in keys}, collection=collection, has_text=True
        ).values_list("pk", flat=True)
    )
    for topic_id, sq_id, passage_id in keys:
        if subquestions.get(sq_id) != topic_id:
            raise SelectionError(
                "items",
                f"sub-question {sq_id} is not a real sub-question of topic {topic_id} in "
                f"collection {collection.name!r}",
            )
        if passage_id not in with_text:
            raise SelectionError(
                "items",
                f"passage {passage_id} is not a passage with text in collection "
                f"{collection.name!r} (people cannot rate a passage they cannot read)",
            )
    return list(keys)


def create_campaign_from_items(
    campaign: Campaign,
    keys: Sequence[Any],
    selection: dict[str, Any],
    *,
    attention_count: int = 0,
    seed: int = 0,
    invited: Iterable[AbstractBaseUser] = (),
) -> Campaign:
    """Save ``campaign`` (unsaved, with its settings and task type) with exactly these items
    (its task type's keys), in the given order; ``selection`` is recorded as how they were
    chosen. SelectionError (naming a field) for keys that are not items of the collection."""
    entry = TASK_TYPE_REGISTRY.get(campaign.task_type)
    if entry is None:
        raise SelectionError("task_type", f"unknown task type '{campaign.task_type}'")
    check_bounds(
        campaign, SelectionOptions(mode="items", seed=seed, attention_count=attention_count)
    )
    keys = [_normal(key) for key in keys]
    _check_count(keys)
    with transaction.atomic():
        if entry.check_chosen_keys is not None:
            keys = entry.check_chosen_keys(campaign.collection, keys)
        else:
            _among_eligible(campaign.collection, keys, entry.eligible_keys(campaign.collection))
        if not campaign.slug:
            campaign.slug = unique_slug(campaign.name)
        campaign.selection = {
            **selection,
            "mode": "items",
            "seed": seed,
            "attention_count": attention_count,
            "items": len(keys),
        }
        campaign.save()
        campaign.invited.set(invited)
        add_items(campaign, entry.item_specs(keys))
        if attention_count:
            add_attention_checks(campaign, attention_count, seed)
    return campaign
