"""Who may review: researchers (the review campaigns of their workspaces), and accounts given
a review campaign (the ``reviewer`` role), who see that campaign's workspace and nothing of the
researcher pages."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Q, QuerySet

from annotation.models import ReviewCampaign
from crux_app.access_scope import as_access
from crux_app.roles import REVIEWER, add_role


def can_review(campaign: ReviewCampaign, who: object, *, decide: bool = False) -> bool:
    """Whether ``who`` (an account or a request) was given the campaign, or is a researcher of
    its collection's workspace (``decide``: one who may change it, not a viewer)."""
    access = as_access(who)
    if not access.user.is_authenticated:
        return False
    if campaign.reviewers.filter(pk=access.user.pk).exists():
        return True
    return ReviewCampaign.objects.visible_to(access, write=decide).filter(pk=campaign.pk).exists()


def given_or_visible(who: object) -> QuerySet[ReviewCampaign]:
    """The review campaigns ``who`` was given or may see as a researcher (its workspaces')."""
    access = as_access(who)
    if not access.user.is_authenticated:
        return ReviewCampaign.objects.none()
    given = ReviewCampaign.objects.filter(reviewers=access.user)
    if access.workspace_id is not None:  # a token narrowed to one workspace
        given = given.filter(collection__workspace_id=access.workspace_id)
    seen = ReviewCampaign.objects.visible_to(access)
    return ReviewCampaign.objects.filter(Q(pk__in=given.values("pk")) | Q(pk__in=seen.values("pk")))


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
