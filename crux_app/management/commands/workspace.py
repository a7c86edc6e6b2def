"""``manage.py workspace create NAME --owner USER | add NAME USER --role ROLE | remove NAME USER
| list``: workspaces and their members from the command line (``crux_app.workspaces``)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crux_app.models import Workspace
from crux_app.workspaces import (
    ROLE_NAMES,
    WorkspaceRefused,
    account_named,
    create_workspace,
    members_of,
    remove_member,
    set_role,
    workspace_named,
)


class Command(BaseCommand):
    help = "Create workspaces, add members with a role or change it, remove members, list them."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        create = actions.add_parser("create", help="a new workspace with its first manager")
        create.add_argument("name")
        create.add_argument("--owner", required=True, help="the username of its first manager")
        add = actions.add_parser("add", help="add a member, or change a member's role")
        add.add_argument("name")
        add.add_argument("username")
        add.add_argument("--role", required=True, choices=ROLE_NAMES)
        remove = actions.add_parser("remove", help="take a member out (never the last manager)")
        remove.add_argument("name")
        remove.add_argument("username")
        listing = actions.add_parser("list", help="every workspace with its members and roles")
        listing.add_argument("name", nargs="?", help="only this workspace")

    def handle(self, *args, action: str, **options) -> None:
        try:
            getattr(self, f"_{action}")(**options)
        except WorkspaceRefused as refusal:
            raise CommandError(str(refusal)) from None

    def _create(self, name: str, owner: str, **options) -> None:
        workspace = create_workspace(name, account_named(owner, "owner"))
        self.stdout.write(f"workspace {workspace.name}: created, {owner} its manager")

    def _add(self, name: str, username: str, role: str, **options) -> None:
        workspace = workspace_named(name)
        member, added = set_role(workspace, account_named(username), role)
        verb = "added as" if added else "is now"
        self.stdout.write(f"{username} {verb} {member.role} of {workspace.name}")

    def _remove(self, name: str, username: str, **options) -> None:
        workspace = workspace_named(name)
        remove_member(workspace, account_named(username))
        self.stdout.write(f"{username} removed from {workspace.name}")

    def _list(self, name: str | None, **options) -> None:
        workspaces = [workspace_named(name)] if name else Workspace.objects.order_by("name")
        for workspace in workspaces:
            count = workspace.collections.count()
            self.stdout.write(f"{workspace.name} ({count} collections)")
            members = list(members_of(workspace))
            for member in members:
                self.stdout.write(f"  {member.user.get_username()}\t{member.role}")
            if not members:
                self.stdout.write("  (no members)")
