"""Crowd annotation: campaigns, their items, annotators' assignments and profiles, and review
campaigns with their items and decisions."""

from .assignment import AnnotatorProfile, Assignment
from .campaign import Campaign, CampaignItem
from .review import ReviewCampaign, ReviewDecision, ReviewItem

__all__ = [
    "AnnotatorProfile",
    "Assignment",
    "Campaign",
    "CampaignItem",
    "ReviewCampaign",
    "ReviewDecision",
    "ReviewItem",
]
