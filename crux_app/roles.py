"""Roles as Django groups, and small composable access checks for views."""

from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.http import HttpRequest

RESEARCHER = "researcher"
ANNOTATOR = "annotator"
# Given with a review campaign (annotation.review_access): that campaign's workspace only.
REVIEWER = "reviewer"


def has_role(user: AbstractBaseUser | AnonymousUser, role: str) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser and role == RESEARCHER:
        return True
    return user.groups.filter(name=role).exists()


def is_researcher(user: AbstractBaseUser | AnonymousUser) -> bool:
    return has_role(user, RESEARCHER)


API_TOKEN_HOLDERS = "researchers and reviewers"  # who ``may_hold_api_token``, in words


def may_hold_api_token(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Researchers and reviewers (the REST API's clients); never annotators only, so a crowd
    worker's account (a Prolific participant bound to one browser) is not used from elsewhere."""
    if not user.is_authenticated or not user.is_active:
        return False
    return is_researcher(user) or has_role(user, REVIEWER)


def add_role(user: AbstractBaseUser, role: str) -> None:
    group, _ = Group.objects.get_or_create(name=role)
    user.groups.add(group)


class ResearcherRequiredMixin(LoginRequiredMixin, UserPassesTestMixin):
    """Researcher pages: anonymous users go to login, other accounts get 403."""

    def test_func(self) -> bool:
        return is_researcher(self.request.user)


def role_context(request: HttpRequest) -> dict[str, object]:
    researcher = is_researcher(request.user)

    def may_hold_token() -> bool:  # called by a template only where it shows the link
        user = request.user
        return researcher or (user.is_authenticated and has_role(user, REVIEWER))

    return {"is_researcher": researcher, "may_hold_api_token": may_hold_token}
