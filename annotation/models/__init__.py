"""Crowd annotation: campaigns, their items, annotators' assignments and profiles, and review
campaigns with their items and decisions."""

from .aggregation import AggregatedLabel, AggregationRun, WorkerStop
from .assignment import AnnotatorProfile, Assignment
from .campaign import Campaign, CampaignItem
from .review import ReviewCampaign, ReviewDecision, ReviewItem

__all__ = [
    "AggregatedLabel",
    "AggregationRun",
    "AnnotatorProfile",
    "Assignment",
    "Campaign",
    "CampaignItem",
    "ReviewCampaign",
    "ReviewDecision",
    "ReviewItem",
    "WorkerStop",
]
