"""What the judge report's PPI section says about campaigns created from the report whose
choice of what to label breaks PPI's random-sample assumption."""

from __future__ import annotations

from annotation.models import Campaign
from crux_app.models import Collection

SOURCE = "judge_report"  # campaign.selection["source"] of the campaigns the report creates


def biased_campaigns(collection: Collection) -> list[str]:
    """One note per campaign of the collection made from the judge report whose labels are not
    a random sample of topics (chosen by uncertainty, or single items rather than topics)."""
    campaigns = Campaign.objects.filter(collection=collection, selection__source=SOURCE)
    notes = []
    for c in campaigns.order_by("created_at", "pk"):
        selection = c.selection
        if selection.get("keeps_ppi_unbiased", True):
            continue
        how = f"{selection.get('unit')} chosen {selection.get('strategy')}"
        if selection.get("strategy") == "uncertain":
            how += f" (by {selection.get('measure')})"
        notes.append(
            f"campaign {c.name!r} labels {how}: not a random sample of whole topics, so where "
            f"{selection.get('reference')}'s labels come from it the PPI and human-only figures "
            "are biased"
        )
    return notes
