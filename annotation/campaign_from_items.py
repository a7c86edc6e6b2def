"""A passage-rating campaign over items the caller chose: (topic, sub-question, passage) keys.

Other parts of the app decide *which* items people should label (e.g. the judge report's "label
these next"); this module only checks that the keys are items of the campaign's collection and
creates the campaign with them, in one transaction, through the same pieces as
``campaign_setup.create_campaign`` (bounds, slug, item payloads, attention checks).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from crux_app.models import Passage, SubQuestion

from .campaign_setup import (
    MAX_ITEMS,
    SelectionOptions,
    add_attention_checks,
    add_items,
    check_bounds,
    unique_slug,
)
from .models import Campaign
from .selection import SelectionError, rating_specs
from .task_types import PASSAGE_RATING

ItemKey = tuple[int, int, int]  # (topic id, sub-question id, passage id)


def _check_keys(campaign: Campaign, keys: Sequence[ItemKey]) -> None:
    if not keys:
        raise SelectionError("items", "no items were chosen")
    if len(set(keys)) != len(keys):
        raise SelectionError("items", "an item is chosen twice")
    if len(keys) > MAX_ITEMS:
        raise SelectionError("items", f"a campaign holds at most {MAX_ITEMS:,} items")
    subquestions = dict(
        SubQuestion.objects.filter(
            pk__in={k[1] for k in keys},
            topic__collection=campaign.collection,
            is_placeholder=False,
        ).values_list("pk", "topic_id")
    )
    with_text = set(
        Passage.objects.filter(
            pk__in={k[2] for k in keys}, collection=campaign.collection, has_text=True
        ).values_list("pk", flat=True)
    )
    for topic_id, sq_id, passage_id in keys:
        if subquestions.get(sq_id) != topic_id:
            raise SelectionError(
                "items",
                f"sub-question {sq_id} is not a real sub-question of topic {topic_id} in "
                f"collection {campaign.collection.name!r}",
            )
        if passage_id not in with_text:
            raise SelectionError(
                "items",
                f"passage {passage_id} is not a passage with text in collection "
                f"{campaign.collection.name!r} (people cannot rate a passage they cannot read)",
            )


def create_campaign_from_items(
    campaign: Campaign,
    keys: Sequence[ItemKey],
    selection: dict[str, Any],
    *,
    attention_count: int = 0,
    seed: int = 0,
    invited: Iterable[AbstractBaseUser] = (),
) -> Campaign:
    """Save ``campaign`` (unsaved, a passage-rating campaign with its settings) with exactly
    these items, in the given order; ``selection`` is recorded as how they were chosen.
    SelectionError (naming a field) for keys that are not items of the collection."""
    if campaign.task_type != PASSAGE_RATING:
        raise SelectionError("task_type", "items chosen by key are passage-rating items")
    check_bounds(
        campaign, SelectionOptions(mode="items", seed=seed, attention_count=attention_count)
    )
    keys = [tuple(int(v) for v in key) for key in keys]
    with transaction.atomic():
        _check_keys(campaign, keys)
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
        add_items(campaign, rating_specs(keys))
        if attention_count:
            add_attention_checks(campaign, attention_count, seed)
    return campaign
