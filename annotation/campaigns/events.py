"""Campaign webhook events, checked after a label is stored: ``campaign.completed`` (every
regular item has its overlap of labels) and ``campaign.label_quota_reached`` (the campaign has
items x overlap labels; with expired reservations some items may hold one label more, so this
can come before completion). Each is sent once per campaign (``webhooks.events.emit``)."""

from __future__ import annotations

from typing import Any

from annotation.models import Campaign
from webhooks.event_types import CAMPAIGN_COMPLETED, CAMPAIGN_LABEL_QUOTA_REACHED
from webhooks.events import any_active_endpoint, emit, recorded, site_url


def _key(campaign_id: int, event_type: str) -> str:
    return f"campaign:{campaign_id}:{event_type}"


def campaign_data(campaign: Campaign, summary: dict[str, int]) -> dict[str, Any]:
    return {
        "campaign": {
            "id": campaign.pk,
            "name": campaign.name,
            "slug": campaign.slug,
            "task_type": campaign.task_type,
            "overlap": campaign.overlap,
            "items": summary["items"],
            "complete_items": summary["complete"],
            "labels": summary["labels"],
            "label_quota": summary["items"] * campaign.overlap,
            "url": site_url("campaign-detail", campaign.pk),
        }
    }


def label_stored(campaign_id: int) -> None:
    """Emit the campaign's events whose threshold its labels have reached (called after the
    label's transaction commits, so concurrent labels all count)."""
    keys = {t: _key(campaign_id, t) for t in (CAMPAIGN_COMPLETED, CAMPAIGN_LABEL_QUOTA_REACHED)}
    if not any_active_endpoint() or recorded(keys.values()) == set(keys.values()):
        return
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return
    summary = campaign.items.progress_summary(campaign.overlap)
    if not summary["items"]:
        return
    reached = {
        CAMPAIGN_COMPLETED: summary["complete"] >= summary["items"],
        CAMPAIGN_LABEL_QUOTA_REACHED: summary["labels"] >= summary["items"] * campaign.overlap,
    }
    data = campaign_data(campaign, summary)
    for event_type, key in keys.items():
        if reached[event_type]:
            emit(event_type, key, campaign.collection_id, data)
