"""Workspaces and their members: create one, add a member or change a role, remove a member,
and the workspace a new collection goes to. ``manage.py workspace``, the members page and the
API call these; the roles are the model's choices (``WorkspaceMember.Role``), declared once."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, QuerySet

from crux_app.access import Access, AccessUser, as_access, workspaces_of
from crux_app.models import Workspace, WorkspaceMember

Role = WorkspaceMember.Role
ROLE_NAMES = tuple(Role.values)  # manager, researcher, viewer
USERNAME_CHARS = 150  # django.contrib.auth's username max_length: the forms' bound


class WorkspaceRefused(ValueError):
    """A change the rules refuse; ``field`` names the input that is wrong ("" for none)."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a workspace (the model field's validators), or None."""
    try:
        Workspace._meta.get_field("name").clean(name, None)
    except ValidationError as error:
        # The rule is the collection names' one; the message says which name it is about.
        return " ".join(error.messages).replace("collection name", "workspace name")
    return None


def role_problem(role: object) -> str | None:
    if role in ROLE_NAMES:
        return None
    return f"the role must be one of {', '.join(ROLE_NAMES)} (got {str(role)[:40]!r})"


def account_named(username: str, field: str = "username") -> AbstractBaseUser:
    found = get_user_model().objects.filter(username=username).first()
    if found is None:
        raise WorkspaceRefused(f"no account named {username[:150]!r}", field)
    return found


def workspace_named(name: str) -> Workspace:
    """The workspace of that name (for the command line: every workspace is named)."""
    found = Workspace.objects.filter(name=name.replace("\x00", "")).first()
    if found is None:
        raise WorkspaceRefused(f"no workspace named {name[:200]!r}", "workspace")
    return found


def create_workspace(name: str, owner: AbstractBaseUser) -> Workspace:
    """A new workspace with ``owner`` as its manager."""
    problem = name_problem(name)
    if problem:
        raise WorkspaceRefused(problem, "name")
    with transaction.atomic():
        if Workspace.objects.filter(name=name).exists():
            raise WorkspaceRefused(f"a workspace named {name!r} exists", "name")
        workspace = Workspace.objects.create(name=name)
        WorkspaceMember.objects.create(workspace=workspace, user=owner, role=Role.MANAGER)
    return workspace


def _refuse_losing_last_manager(workspace: Workspace, member: WorkspaceMember) -> None:
    others = workspace.members.filter(role=Role.MANAGER).exclude(pk=member.pk)
    if member.role == Role.MANAGER and not others.exists():
        raise WorkspaceRefused(
            f"{member.user.get_username()} is the last manager of {workspace.name!r}: "
            "make another member a manager first"
        )


def set_role(
    workspace: Workspace, user: AbstractBaseUser, role: str
) -> tuple[WorkspaceMember, bool]:
    """Add ``user`` to ``workspace`` with ``role``, or change its role; (member, added)."""
    problem = role_problem(role)
    if problem:
        raise WorkspaceRefused(problem, "role")
    with transaction.atomic():
        # One change of a workspace's managers at a time: two demotions cannot both pass the
        # last-manager check.
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        member = WorkspaceMember.objects.filter(workspace=workspace, user=user).first()
        if member is None:
            member = WorkspaceMember.objects.create(workspace=workspace, user=user, role=role)
            return member, True
        if member.role != role:
            if role != Role.MANAGER:
                _refuse_losing_last_manager(workspace, member)
            member.role = role
            member.save(update_fields=["role"])
    return member, False


def remove_member(workspace: Workspace, user: AbstractBaseUser) -> None:
    """Take ``user`` out of ``workspace``; refused for a non-member and the last manager."""
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        member = WorkspaceMember.objects.filter(workspace=workspace, user=user).first()
        if member is None:
            raise WorkspaceRefused(
                f"{user.get_username()} is not a member of {workspace.name!r}", "username"
            )
        _refuse_losing_last_manager(workspace, member)
        member.delete()


def members_of(workspace: Workspace) -> QuerySet[WorkspaceMember]:
    return workspace.members.select_related("user").order_by("user__username")


def listed_workspaces(who: Access | AccessUser) -> QuerySet[Workspace]:
    """The workspaces ``who`` sees, with their members' and collections' counts."""
    return workspaces_of(who).annotate(
        n_members=Count("members", distinct=True), n_collections=Count("collections", distinct=True)
    )


def may_manage(who: Access | AccessUser, workspace: Workspace) -> bool:
    """Whether ``who`` may change ``workspace``'s members: its managers and superusers, unless a
    token narrows them elsewhere or to reading."""
    access = as_access(who)
    if not workspaces_of(access, write=True).filter(pk=workspace.pk).exists():
        return False
    user = access.user
    return user.is_superuser or workspace.members.filter(user=user, role=Role.MANAGER).exists()


def may_create(who: Access | AccessUser) -> bool:
    """Only superusers create workspaces (not through a read-only or narrowed token)."""
    access = as_access(who)
    return access.user.is_superuser and not access.read_only and access.workspace_id is None


def workspace_for_new_collection(who: Access | AccessUser, name: str | None) -> Workspace:
    """The workspace ``who`` puts a new collection in: ``name`` if ``who`` may write there;
    without a name, the only one it may write. Refusals name the writable ones only."""
    writable = workspaces_of(who, write=True).order_by("name")
    names = list(writable.values_list("name", flat=True)[:50])
    if name:
        found = writable.filter(name=name.replace("\x00", "")).first()
        if found is not None:
            return found
    if not names:
        raise WorkspaceRefused("you may add collections to no workspace", "workspace")
    if not name and len(names) == 1:
        return writable.get()
    choices = ", ".join(names)
    if name:
        raise WorkspaceRefused(
            f"no workspace {name[:200]!r} you may add collections to; choose one of: {choices}",
            "workspace",
        )
    raise WorkspaceRefused(f"name the workspace: one of {choices}", "workspace")
