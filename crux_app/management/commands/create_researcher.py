"""Create (or update) a researcher account: `manage.py create_researcher NAME --password P
[--workspace W]`."""

import os

from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import MaxLengthValidator

from crux_app.account_setup import ensure_account
from crux_app.models import Workspace
from crux_app.models.workspace import DEFAULT_WORKSPACE
from crux_app.roles import RESEARCHER


class Command(BaseCommand):
    help = "Create or update a researcher account (group 'researcher'; --staff opens /admin/)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--password",
            default=os.environ.get("RESEARCHER_PASSWORD", ""),
            help="the account's password (default: env RESEARCHER_PASSWORD)",
        )
        parser.add_argument("--staff", action="store_true", help="let the account open /admin/")
        parser.add_argument(
            "--workspace",
            default=DEFAULT_WORKSPACE,
            help=f"the workspace it joins as a researcher (default: {DEFAULT_WORKSPACE})",
        )

    def handle(self, *args, **options) -> None:
        username = options["username"]
        max_length = get_user_model()._meta.get_field("username").max_length
        try:
            for validator in (UnicodeUsernameValidator(), MaxLengthValidator(max_length)):
                validator(username)
        except ValidationError as error:
            raise CommandError(f"username {username[:80]!r}: {' '.join(error.messages)}") from error
        password = options["password"]
        if len(password) < 8:
            raise CommandError(
                "give a password of at least 8 characters (--password or env RESEARCHER_PASSWORD)"
            )
        workspace = options["workspace"]
        if workspace != DEFAULT_WORKSPACE and not Workspace.objects.filter(name=workspace).exists():
            raise CommandError(
                f"--workspace: no workspace named {workspace[:200]!r} "
                "(make it with: manage.py workspace create NAME --owner USER)"
            )
        result = ensure_account(
            username, password, RESEARCHER, staff=options["staff"], workspace=workspace
        )
        verb = "created" if result.created else ("updated" if result.changed else "unchanged")
        self.stdout.write(f"researcher {result.username}: {verb}")
