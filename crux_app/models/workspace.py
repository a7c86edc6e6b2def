"""Workspaces: the unit of access. A collection belongs to one; members hold a role in it."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from crux_app.collection_names import validate_collection_name

DEFAULT_WORKSPACE = "default"  # where collections go when no workspace is named


class Workspace(models.Model):
    name = models.CharField(max_length=200, unique=True, validators=[validate_collection_name])
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class WorkspaceMember(models.Model):
    class Role(models.TextChoices):
        MANAGER = "manager", "Manager (members, settings, deletion)"
        RESEARCHER = "researcher", "Researcher (everything on its collections)"
        VIEWER = "viewer", "Viewer (read only)"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workspace_memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.RESEARCHER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["workspace__name", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "user"], name="one_role_per_workspace")
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.workspace}"

    @property
    def may_write(self) -> bool:
        return self.role != self.Role.VIEWER


def default_workspace_pk() -> int:
    """The ``default`` workspace's id, made on first use (the collection's field default)."""
    workspace, _ = Workspace.objects.get_or_create(name=DEFAULT_WORKSPACE)
    return workspace.pk
