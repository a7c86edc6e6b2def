"""The workspaces part of ``Client``: list and create workspaces, list, add and remove members."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pandas as pd


def _segment(value: str) -> str:
    return quote(value, safe="")


class WorkspacesMixin:
    """Mixed into ``Client``, whose ``request`` and ``_pages`` it calls."""

    def workspaces(self) -> pd.DataFrame:
        """Your workspaces (a superuser: every one): name, your role, members, collections."""
        rows = list(self._pages("workspaces/", {}))
        return pd.DataFrame(rows)

    def create_workspace(self, name: str, owner: str | None = None) -> dict[str, Any]:
        """A new workspace with ``owner`` (default: you) as its manager; superusers only."""
        body: dict[str, Any] = {"name": name}
        if owner is not None:
            body["owner"] = owner
        return self.request("POST", "workspaces/", json=body)

    def workspace_members(self, workspace: str) -> pd.DataFrame:
        """The workspace's members: username, role, since (``created_at``)."""
        rows = list(self._pages(f"workspaces/{_segment(workspace)}/members/", {}))
        return pd.DataFrame(rows, columns=["username", "role", "created_at"])

    def add_member(self, workspace: str, username: str, role: str = "researcher") -> dict:
        """Add ``username`` with ``role`` (manager, researcher, viewer), or change its role;
        the workspace's managers only."""
        path = f"workspaces/{_segment(workspace)}/members/{_segment(username)}/"
        return self.request("PUT", path, json={"role": role})

    def remove_member(self, workspace: str, username: str) -> None:
        """Take ``username`` out of the workspace (never its last manager)."""
        path = f"workspaces/{_segment(workspace)}/members/{_segment(username)}/"
        self.request("DELETE", path)
