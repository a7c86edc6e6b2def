"""Roles as Django groups, and small composable access checks for views."""

from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.http import HttpRequest

from crux_app.models.workspace import DEFAULT_WORKSPACE, Workspace, WorkspaceMember

RESEARCHER = "researcher"
ANNOTATOR = "annotator"
# Given with a review campaign (annotation.review.access): that campaign's workspace only.
REVIEWER = "reviewer"


def has_role(user: AbstractBaseUser | AnonymousUser, role: str) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser and role == RESEARCHER:
        return True
    if role == RESEARCHER and user.workspace_memberships.exists():
        return True  # a workspace's member (a viewer too) uses the researcher pages
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


def add_role(user: AbstractBaseUser, role: str, workspace: str | None = None) -> None:
    """Give ``user`` the role; a researcher also joins ``workspace`` (default: ``default``, the
    install's shared workspace) as a researcher, unless already a member there."""
    group, _ = Group.objects.get_or_create(name=role)
    user.groups.add(group)
    if role == RESEARCHER:
        space, _ = Workspace.objects.get_or_create(name=workspace or DEFAULT_WORKSPACE)
        WorkspaceMember.objects.get_or_create(workspace=space, user=user)


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
