"""Idempotent creation of role accounts for the demo and for first-time setup."""

from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Permission

from .models import Workspace, WorkspaceMember
from .models.workspace import DEFAULT_WORKSPACE
from .roles import RESEARCHER, add_role


def project_app_labels() -> tuple[str, ...]:
    """The project's own apps (packages at the top of BASE_DIR, not installed libraries): a
    staff researcher may browse and edit their models in /admin/."""
    base = Path(settings.BASE_DIR).resolve()
    return tuple(
        config.label
        for config in apps.get_app_configs()
        if Path(config.path).resolve().is_relative_to(base / config.name.split(".")[0])
    )


@dataclass(frozen=True)
class AccountResult:
    username: str
    created: bool
    changed: bool


def ensure_account(
    username: str,
    password: str | None,
    role: str,
    staff: bool = False,
    *,
    workspace: str | None = None,
    workspace_role: str = WorkspaceMember.Role.RESEARCHER,
) -> AccountResult:
    """Create or update `username` so it has `password`, `role` and staff status; no-op if set.
    A researcher is also a member of ``workspace`` (default: ``default``) with at least
    ``workspace_role`` (never lowered: a manager stays one).

    ``password=None`` leaves an existing account's password as it is (a new one gets none
    usable)."""
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(username=username)
    changed = created
    if password is None:
        if created:
            user.set_unusable_password()
    elif not user.check_password(password):
        user.set_password(password)
        changed = True
    if staff and not user.is_staff:
        user.is_staff = True
        changed = True
    if changed:
        user.save()
    # Check the group itself: has_role() is also true for a superuser outside the group.
    if not user.groups.filter(name=role).exists():
        add_role(user, role, workspace)
        changed = True
    if role == RESEARCHER and _ensure_member(user, workspace or DEFAULT_WORKSPACE, workspace_role):
        changed = True
    if staff and _grant_admin_permissions(user):
        changed = True
    return AccountResult(username=username, created=created, changed=changed)


ROLE_RANK = {
    WorkspaceMember.Role.VIEWER: 0,
    WorkspaceMember.Role.RESEARCHER: 1,
    WorkspaceMember.Role.MANAGER: 2,
}


def _ensure_member(user: AbstractBaseUser, name: str, role: str) -> bool:
    """Make ``user`` a member of workspace ``name`` with at least ``role``; True if it changed."""
    workspace, _ = Workspace.objects.get_or_create(name=name)
    member = WorkspaceMember.objects.filter(workspace=workspace, user=user).first()
    if member is None:
        WorkspaceMember.objects.create(workspace=workspace, user=user, role=role)
        return True
    if ROLE_RANK[role] <= ROLE_RANK[member.role]:
        return False
    member.role = role
    member.save(update_fields=["role"])
    return True


def _grant_admin_permissions(user: AbstractBaseUser) -> bool:
    """Give a staff account every model permission of the project's apps; True if any was new."""
    wanted = set(
        Permission.objects.filter(content_type__app_label__in=project_app_labels()).values_list(
            "pk", flat=True
        )
    )
    missing = wanted - set(user.user_permissions.values_list("pk", flat=True))
    if missing:
        user.user_permissions.add(*missing)
    return bool(missing)
