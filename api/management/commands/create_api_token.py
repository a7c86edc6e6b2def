"""``manage.py create_api_token --user NAME [--expires-days N] [--workspace W] [--read-only]``:
a new personal API token, alone on the last line."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.tokens import MAX_EXPIRY_DAYS, TokenRefused, issue_token
from crux_app.models import Workspace


def _days(text: str) -> int:
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_EXPIRY_DAYS:
        raise CommandError(f"--expires-days must be a whole number from 1 to {MAX_EXPIRY_DAYS}")
    return int(text)


class Command(BaseCommand):
    help = "Make a personal API token for a user and print it (alone on the last line)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="the account's username")
        parser.add_argument("--name", default="command line", help="what the token is for")
        parser.add_argument(
            "--expires-days",
            default=None,
            help=f"the token expires after this many days (1 to {MAX_EXPIRY_DAYS}); "
            "default: never (until revoked)",
        )
        parser.add_argument(
            "--workspace",
            default=None,
            help="narrow the token to this workspace of the user's; default: every one",
        )
        parser.add_argument(
            "--read-only", action="store_true", help="the token may read, never change"
        )

    def handle(
        self,
        *args,
        user: str,
        name: str,
        expires_days: str | None,
        workspace: str | None,
        read_only: bool,
        **options,
    ) -> None:
        days = None if expires_days is None else _days(expires_days[:12])
        account = get_user_model().objects.filter(username=user).first()
        if account is None:
            raise CommandError(f"no user named {user!r}")
        if not account.is_active:
            raise CommandError(f"user {user!r} is inactive")
        narrowed = None
        if workspace is not None:
            narrowed = Workspace.objects.filter(name=workspace).first()
            if narrowed is None:
                raise CommandError(f"no workspace named {workspace[:200]!r}")
        try:
            row, token = issue_token(
                account, name[:100], days, workspace=narrowed, read_only=read_only
            )
        except (TokenRefused, ValueError) as exc:
            raise CommandError(f"user {user!r}: {exc}") from None
        until = f", expires {row.expires_at:%Y-%m-%d %H:%M} UTC" if row.expires_at else ""
        self.stderr.write(
            f"API token {row.prefix}… for {user} (shown once; only a hash is kept{until})"
        )
        self.stdout.write(token)
