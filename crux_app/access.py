"""Who may see and change a collection: its workspace's members by role, a token's narrowing,
and 404 for what a user may not know exists. Every door (page, API, export, job, webhook,
campaign, admin) goes through ``Collection.objects.visible_to`` or the lookups below."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest

from crux_app.models import Collection, Workspace, WorkspaceMember

AccessUser = AbstractBaseUser | AnonymousUser


@dataclass(frozen=True)
class Access:
    """Who asks: an account, and what its API token narrows it to (one workspace, read only)."""

    user: AccessUser
    workspace_id: int | None = None
    read_only: bool = False

    @classmethod
    def of(cls, request: HttpRequest | object) -> Access:
        """The access of a page's or an API call's request (DRF puts the token in ``auth``)."""
        token = getattr(request, "auth", None)
        return cls(
            user=request.user,
            workspace_id=getattr(token, "workspace_id", None),
            read_only=bool(getattr(token, "read_only", False)),
        )


def as_access(who: Access | AccessUser | HttpRequest | object) -> Access:
    if isinstance(who, Access):
        return who
    if hasattr(who, "user"):  # a request
        return Access.of(who)
    return Access(user=who)


def workspaces_of(who: Access | AccessUser | HttpRequest, *, write: bool = False):
    """The workspaces ``who`` may read (``write``: change), as a queryset."""
    access = as_access(who)
    user = access.user
    rows = Workspace.objects.all()
    if not user.is_authenticated or (write and access.read_only):
        return rows.none()
    if access.workspace_id is not None:
        rows = rows.filter(pk=access.workspace_id)
    if user.is_superuser:
        return rows
    members = WorkspaceMember.objects.filter(user=user)
    if write:
        members = members.exclude(role=WorkspaceMember.Role.VIEWER)
    return rows.filter(pk__in=members.values("workspace_id"))


def role_in(user: AccessUser, workspace: Workspace) -> str | None:
    """``user``'s role in ``workspace`` (a superuser manages every one), or None."""
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return WorkspaceMember.Role.MANAGER
    found = WorkspaceMember.objects.filter(workspace=workspace, user=user).first()
    return found.role if found else None


def collection_or_404(
    who: Access | AccessUser | HttpRequest,
    *,
    pk: int | None = None,
    name: str | None = None,
    write: bool = False,
) -> Collection:
    """The collection ``who`` may see (404 otherwise, as if it did not exist); with ``write``,
    403 when ``who`` sees it but may only read it (a viewer, or a read-only token)."""
    access = as_access(who)
    lookup = {"pk": pk} if pk is not None else {"name": (name or "").replace("\x00", "")}
    collection = Collection.objects.visible_to(access).filter(**lookup).first()
    if collection is None:
        raise Http404("No such collection.")
    if write and not may_write(access, collection):
        raise PermissionDenied(read_only_reason(access, collection))
    return collection


def may_write(who: Access | AccessUser | HttpRequest, collection: Collection) -> bool:
    return workspaces_of(who, write=True).filter(pk=collection.workspace_id).exists()


def read_only_reason(access: Access, collection: Collection) -> str:
    if access.read_only:
        return "This API token is read-only."
    return f"You may only read collections of workspace “{collection.workspace.name}”."
