"""Two workspaces for the workspace matrix (test_workspace_matrix.py): ``zqa-space`` holds every
collection ``url_patterns.seed`` makes (each method's stored results, a crowd campaign, a review
campaign, jobs, a webhook, and here an export with its file), ``zqb-space`` one small
collection with a job. Every name of A's starts with ``zqa-`` and of B's with ``zqb-``, and
the topics' texts carry a marker, so an answer that shows another workspace's data is found by
text. Accounts: A's researcher and viewer, B's researcher, an annotator invited to A's crowd
campaign only, nobody, and two API tokens: a researcher of both workspaces' narrowed to B, and
A's researcher's read-only."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Value
from django.db.models.functions import Concat
from django.test import Client
from django.utils import timezone

from annotation.models import Campaign, ReviewCampaign
from api.models import ExportFile
from api.tokens import issue_token
from crux_app.models import Collection, Job, Passage, Topic, Workspace, WorkspaceMember
from crux_app.roles import ANNOTATOR, add_role
from tests.crux_app.factories import make_collection, make_passages, make_run, make_topic
from tests.security.url_patterns import seed
from webhooks.models import Endpoint

A, B = "zqa", "zqb"  # the markers that start each workspace's names
TOPIC_MARKER = {A: "zqa-topic-text", B: "zqb-topic-text"}  # in front of each topic's request
# The API's tokens: one of a researcher of both workspaces narrowed to B, and a read-only
# one of A's member.
TOKEN_ROLES = ("narrowed-token", "read-only-token")
ROLES = ("member", "viewer", "outsider", "annotator", "anonymous", *TOKEN_ROLES)
# Tables a refused request may write: sessions, a token's last use, login bookkeeping, workers'
# heartbeats.
VOLATILE_TABLES = {"django_session", "api_apitoken", "crux_app_workerheartbeat"}
VOLATILE_PREFIXES = ("axes_",)


@dataclass
class Site:
    clients: dict[str, Client]  # role -> a client logged in as it (anonymous: none)
    worlds: list[dict[str, str]]  # A's path values around each of its collections
    secrets: dict[str, tuple[str, ...]]  # A / B -> texts only that workspace's people may see
    invited_campaign: str  # the name of A's crowd campaign, which the annotator may see
    baseline: tuple[str, ...] = field(default=())  # fingerprint() before any request
    worlds_by_route: dict[str, dict[str, str]] = field(default_factory=dict)  # route name ->
    unplaced: list[str] = field(default_factory=list)  # routes that let their owner in nowhere

    def changed_tables(self) -> list[str]:
        """The tables whose rows differ from the baseline."""
        pairs = zip(_tables(), self.baseline, fingerprint(), strict=True)
        return [table for table, was, now in pairs if was != now]


def _user(name: str, workspace: Workspace | None, role: str | None) -> AbstractBaseUser:
    user = get_user_model().objects.create_user(name)  # no password: force_login only
    if workspace is not None:
        WorkspaceMember.objects.create(workspace=workspace, user=user, role=role)
    return user


def make_site(export_dir: Path) -> Site:
    """The two workspaces, their accounts and logged-in clients; the export's file is written
    under ``export_dir`` (the module's ``API_EXPORT_DIR``)."""
    space_a = Workspace.objects.create(name=f"{A}-space")
    space_b = Workspace.objects.create(name=f"{B}-space")
    researcher = WorkspaceMember.Role.RESEARCHER
    member = _user(f"{A}-rita", space_a, researcher)
    viewer = _user(f"{A}-vera", space_a, WorkspaceMember.Role.VIEWER)
    outsider = _user(f"{B}-bert", space_b, researcher)
    annotator = _user(f"{A}-anna", None, None)
    add_role(annotator, ANNOTATOR)
    seeded = seed(annotator, member, marker=A)
    Collection.objects.update(workspace=space_a)
    Endpoint.objects.update(url=f"https://8.8.8.8/{A}-hook")
    first = Collection.objects.order_by("pk").first()
    export = _export(first, member, export_dir)
    a_topic = Topic.objects.filter(collection=first).order_by("pk").first()
    make_run(first, f"{A}-run", a_topic, Passage.objects.filter(collection=first)[:2])
    for world in seeded.worlds:
        world["export"] = str(export.pk)
    theirs = make_collection(f"{B}-small")
    topic = make_topic(theirs, f"{B}-t1", n_subquestions=1)
    make_run(theirs, f"{B}-run", topic, make_passages(theirs, f"{B}-t1", 3))
    Collection.objects.filter(pk=theirs.pk).update(workspace=space_b)
    Job.objects.create(kind="judge", collection=theirs, created_by=outsider, params={"k": 3})
    for marker, space in ((A, space_a), (B, space_b)):
        Topic.objects.filter(collection__workspace=space).update(
            request=Concat(Value(f"{TOPIC_MARKER[marker]} "), "request")
        )
    secrets = {
        marker: (
            TOPIC_MARKER[marker],
            f"{marker}-hook",
            f"{marker}-run",
            f"{marker}-space",
            *Collection.objects.filter(workspace=space).values_list("name", flat=True),
            *Campaign.objects.filter(collection__workspace=space).values_list("name", flat=True),
            *ReviewCampaign.objects.filter(collection__workspace=space).values_list(
                "name", flat=True
            ),
        )
        for marker, space in ((A, space_a), (B, space_b))
    }
    clients = {"anonymous": Client()}
    for role, user in (("member", member), ("viewer", viewer), ("outsider", outsider)):
        clients[role] = Client()
        clients[role].force_login(user)
    clients["annotator"] = Client()
    clients["annotator"].force_login(annotator)
    both = _user(f"{B}-nina", space_b, researcher)
    WorkspaceMember.objects.create(workspace=space_a, user=both, role=researcher)
    for role, user, narrowing in (
        ("narrowed-token", both, {"workspace": space_b}),
        ("read-only-token", member, {"read_only": True}),
    ):
        _, token = issue_token(user, role, **narrowing)
        clients[role] = Client(headers={"Authorization": f"Bearer {token}"})
    invited = Campaign.objects.get(invited=annotator).name
    return Site(clients, seeded.worlds, secrets, invited, fingerprint())


def _export(collection: Collection, member: AbstractBaseUser, export_dir: Path) -> Job:
    """A finished export of ``collection`` with its file (as ``run_export_job`` leaves it)."""
    job = Job.objects.create(
        kind="export",
        collection=collection,
        created_by=member,
        state=Job.State.SUCCEEDED,
        params={"export": "qrels", "format": "csv", "params": {"collection": collection.name}},
    )
    export_dir.mkdir(parents=True, exist_ok=True)
    content = f"topic,passage\n{TOPIC_MARKER[A]},p0\n".encode()
    (export_dir / "matrix-export.csv").write_bytes(content)
    ExportFile.objects.create(
        job=job,
        path="matrix-export.csv",
        filename="matrix-export.csv",
        content_type="text/csv; charset=utf-8",
        rows=1,
        size=len(content),
        expires_at=timezone.now() + timedelta(hours=1),
    )
    return job


def _tables() -> list[str]:
    tables = {
        model._meta.db_table
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }
    return sorted(
        t for t in tables if t not in VOLATILE_TABLES and not t.startswith(VOLATILE_PREFIXES)
    )


def fingerprint() -> tuple[str, ...]:
    """An md5 of every row of each table (but the volatile ones), in one query: a request that
    changes, adds or deletes any row changes its table's entry."""
    quoted = [connection.ops.quote_name(table) for table in _tables()]
    columns = ", ".join(
        f"(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM {table} t)"
        for table in quoted
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns}")  # noqa: S608 - table names from the models
        return tuple(cursor.fetchone())
