"""``manage.py create_api_token --user NAME``: a new personal API token, alone on the last line."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.tokens import issue_token


class Command(BaseCommand):
    help = "Make a personal API token for a user and print it (alone on the last line)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="the account's username")
        parser.add_argument("--name", default="command line", help="what the token is for")

    def handle(self, *args, user: str, name: str, **options) -> None:
        account = get_user_model().objects.filter(username=user).first()
        if account is None:
            raise CommandError(f"no user named {user!r}")
        if not account.is_active:
            raise CommandError(f"user {user!r} is inactive")
        row, token = issue_token(account, name[:100])
        self.stderr.write(f"API token {row.prefix}… for {user} (shown once; only a hash is kept)")
        self.stdout.write(token)
