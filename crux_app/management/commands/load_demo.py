"""Load the demo: the report collection `demo`, the QA collection `demo-qa` and two accounts.

Idempotent: a collection that already exists is left as it is (``--replace`` re-imports it),
and the accounts are only touched where their password, role or staff flag differ.

Passwords: env ``DEMO_PASSWORD`` (researcher) and ``DEMO_ANNOTATOR_PASSWORD`` (annotator) win;
otherwise, with ``--passwords-file`` (scripts/demo.sh passes ``var/demo_passwords.json``), the
passwords kept in that file, generated at random on first use and written with mode 600;
otherwise a new account gets a random password (printed once) and an existing one keeps its own.
There are no fixed demo passwords.
"""

import json
import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from crux_app.account_setup import ensure_account
from crux_app.demo_data import demo_data
from crux_app.models import Collection, WorkspaceMember
from crux_app.roles import ANNOTATOR, RESEARCHER

DEMO_COLLECTION = "demo"
DEMO_QA_COLLECTION = "demo-qa"
RESEARCHER_USERNAME = "researcher"
ANNOTATOR_USERNAME = "annotator"
PASSWORD_ENV = {RESEARCHER_USERNAME: "DEMO_PASSWORD", ANNOTATOR_USERNAME: "DEMO_ANNOTATOR_PASSWORD"}


def new_password() -> str:
    return secrets.token_urlsafe(12)


def kept_passwords(path: Path) -> dict[str, str]:
    """The demo accounts' passwords kept in `path` (JSON, username -> password), written with
    random passwords (mode 600) when the file is missing or lacks an account."""
    passwords: dict[str, str] = {}
    if path.exists():
        try:
            passwords = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise CommandError(f"{path}: not a JSON file of demo passwords ({error})") from error
        if not isinstance(passwords, dict):
            raise CommandError(f"{path}: not a JSON object of demo passwords")
    missing = [name for name in PASSWORD_ENV if not isinstance(passwords.get(name), str)]
    if missing or not path.exists():
        passwords.update({name: new_password() for name in missing})
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.tmp")
        partial.unlink(missing_ok=True)
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            json.dump(passwords, handle, indent=2)
            handle.write("\n")
        partial.replace(path)
    path.chmod(0o600)
    return passwords


class Command(BaseCommand):
    help = (
        "Import fixtures/demo (CRUX labeling layout) as collection 'demo' and "
        "fixtures/demo_qa.jsonl as 'demo-qa', and create the accounts 'researcher' (staff) "
        "and 'annotator'. Passwords: env DEMO_PASSWORD and DEMO_ANNOTATOR_PASSWORD, else the "
        "ones kept in --passwords-file (generated on first use), else random for new accounts."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        fixtures = Path(settings.BASE_DIR) / "fixtures"
        parser.add_argument("--demo-dir", type=Path, default=fixtures / "demo")
        parser.add_argument("--qa-file", type=Path, default=fixtures / "demo_qa.jsonl")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="delete the demo collections first and import them again",
        )
        parser.add_argument(
            "--passwords-file",
            type=Path,
            default=None,
            help="JSON file keeping the demo passwords; random ones are written there (mode "
            "600) on first use",
        )

    def handle(self, *args, **options) -> None:
        demo_dir: Path = options["demo_dir"]
        qa_file: Path = options["qa_file"]
        if not demo_dir.is_dir():
            raise CommandError(f"demo folder not found: {demo_dir}")
        if not qa_file.is_file():
            raise CommandError(f"demo QA file not found: {qa_file}")
        kept = kept_passwords(options["passwords_file"]) if options["passwords_file"] else {}

        # One transaction: a failing import leaves neither collection nor accounts half-made.
        with transaction.atomic():
            if options["replace"]:
                names = [DEMO_COLLECTION, DEMO_QA_COLLECTION, *(d.key for d in demo_data())]
                Collection.objects.filter(name__in=names).delete()
            self._import("import_crux_labeling", DEMO_COLLECTION, demo_dir)
            self._import("import_qa", DEMO_QA_COLLECTION, qa_file)
            for entry in demo_data():  # the apps' own demo content (crux_app.demo_data)
                if Collection.objects.filter(name=entry.key).exists():
                    self.stdout.write(f"collection {entry.key}: already loaded, left unchanged")
                    continue
                entry.load(demo_dir.parent, self.stdout.write)
                self.stdout.write(f"collection {entry.key}: loaded")
            generated: dict[str, str] = {}
            passwords = {}
            for username in (RESEARCHER_USERNAME, ANNOTATOR_USERNAME):
                password = os.environ.get(PASSWORD_ENV[username]) or kept.get(username)
                if password is None and not self._account_exists(username):
                    password = generated[username] = new_password()
                passwords[username] = password
            accounts = [
                ensure_account(  # the demo's researcher manages the `default` workspace
                    RESEARCHER_USERNAME,
                    passwords[RESEARCHER_USERNAME],
                    RESEARCHER,
                    staff=True,
                    workspace_role=WorkspaceMember.Role.MANAGER,
                ),
                ensure_account(ANNOTATOR_USERNAME, passwords[ANNOTATOR_USERNAME], ANNOTATOR),
            ]
        for account in accounts:
            verb = "created" if account.created else ("updated" if account.changed else "exists")
            shown = (
                f" (password: {generated[account.username]})"
                if account.username in generated
                else ""
            )
            self.stdout.write(f"account {account.username}: {verb}{shown}")

    @staticmethod
    def _account_exists(username: str) -> bool:
        return get_user_model().objects.filter(username=username).exists()

    def _import(self, command: str, collection: str, source: Path) -> None:
        if Collection.objects.filter(name=collection).exists():
            self.stdout.write(f"collection {collection}: already loaded, left unchanged")
            return
        call_command(command, "--collection", collection, str(source), stdout=self.stdout)
        self.stdout.write(f"collection {collection}: imported from {source}")
