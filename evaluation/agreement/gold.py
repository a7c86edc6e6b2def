"""Annotators' scores on gold items, from the annotation campaigns of a collection.

A gold item's score is the campaign's own ``agreement_score`` (a 0-5 rating within the
campaign's tolerance counts as right; a report scores the share of sub-questions right), as
the campaign's quality control computes it; this module only collects the scores.
"""

from __future__ import annotations

from collections import defaultdict

from annotation.models import Campaign
from annotation.quality.checks import campaign_quality
from crux_app.models import Collection
from evaluation.agreement.label_tables import CampaignScope

NO_CAMPAIGNS = "no gold items: no annotation campaign of this collection has gold items"


def gold_scores(collection: Collection, scope: CampaignScope) -> dict[tuple[int, str], list[float]]:
    """(annotator user id, task type) -> that annotator's gold-item scores, over the scoped
    campaign or every campaign of the collection."""
    campaigns = Campaign.objects.filter(collection=collection)
    if scope.applied:
        campaigns = campaigns.filter(pk=scope.campaign_id)
    out: dict[tuple[int, str], list[float]] = defaultdict(list)
    for campaign in campaigns.filter(items__is_gold=True).distinct():
        for user_id, status in campaign_quality(campaign).items():
            out[(user_id, campaign.task_type)].extend(status.gold_scores)
    return dict(out)
