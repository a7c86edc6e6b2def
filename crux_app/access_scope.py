"""Who asks, and the workspaces that person may see: the ground of ``crux_app.access`` that
the models' ``visible_to`` use too (so it imports no model module; they are looked up by name)."""

from __future__ import annotations

from dataclasses import dataclass

from django.apps import apps
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import HttpRequest

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


def workspaces_of(who: Access | AccessUser | HttpRequest, *, write: bool = False) -> QuerySet:
    """The workspaces ``who`` may read (``write``: change), as a queryset."""
    access = as_access(who)
    user = access.user
    rows = apps.get_model("crux_app", "Workspace").objects.all()
    if not user.is_authenticated or (write and access.read_only):
        return rows.none()
    if access.workspace_id is not None:
        rows = rows.filter(pk=access.workspace_id)
    if user.is_superuser:
        return rows
    members = apps.get_model("crux_app", "WorkspaceMember").objects.filter(user=user)
    if write:
        members = members.exclude(role="viewer")
    return rows.filter(pk__in=members.values("workspace_id"))
