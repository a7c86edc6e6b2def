"""Who may review: researchers (any review campaign), and accounts given a review campaign
(the ``reviewer`` role), who see that campaign's workspace and nothing of the researcher
pages."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import QuerySet

from crux_app.roles import REVIEWER, add_role, is_researcher

from .models import ReviewCampaign


def can_review(campaign: ReviewCampaign, user: AbstractBaseUser | AnonymousUser) -> bool:
    if not user.is_authenticated:
        return False
    return is_researcher(user) or campaign.reviewers.filter(pk=user.pk).exists()


def reviewable(user: AbstractBaseUser | AnonymousUser) -> QuerySet[ReviewCampaign]:
    """The open review campaigns an account was given (a researcher's own list is the
    researcher page)."""
    if not user.is_authenticated:
        return ReviewCampaign.objects.none()
    return ReviewCampaign.objects.filter(reviewers=user, state=ReviewCampaign.State.OPEN)


def add_reviewer(campaign: ReviewCampaign, username: str) -> AbstractBaseUser:
    """Give an existing account the campaign (and the reviewer role); LookupError if no
    account has that name."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise LookupError(f"no account is called {username!r}")
    with transaction.atomic():
        add_role(user, REVIEWER)
        campaign.reviewers.add(user)
    return user
