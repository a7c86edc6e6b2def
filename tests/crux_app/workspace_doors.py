"""Two workspaces for the door tests: ``alpha`` holds the hand-made collection ``alpha-hand``
(tests/evaluation/crux/evaluate_collection.py) with a job and an export file, ``beta`` the QA
collection ``beta-secret`` with a job of its own; accounts: alpha's researcher and viewer, and
beta's researcher (a member of beta only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from api.models import ExportFile
from crux_app.models import Collection, Job, Topic, Workspace, WorkspaceMember
from tests.crux_app.job_collections import make_answer_collection
from tests.evaluation.crux.evaluate_collection import make_hand_collection

A_NAME, B_NAME = "alpha-hand", "beta-secret"
B_JOB_PARAMS = {"k": 7, "note": "beta-only-job-param"}
EXPORT_BYTES = b"topic,passage\nta,p0\n"


@dataclass
class TwoWorkspaces:
    a: Collection
    b: Collection
    a_topic: Topic
    b_topic: Topic
    a_job: Job  # pending, of alpha's collection
    b_job: Job
    a_export: Job  # a finished export of alpha's collection, with its file
    member: AbstractBaseUser  # alpha's researcher
    viewer: AbstractBaseUser  # alpha's viewer
    outsider: AbstractBaseUser  # beta's researcher, no member of alpha


def _member(name: str, workspace: Workspace, role: str) -> AbstractBaseUser:
    user = get_user_model().objects.create_user(name, password=f"{name}-pass-1")
    WorkspaceMember.objects.create(workspace=workspace, user=user, role=role)
    return user


def make_two_workspaces(export_dir) -> TwoWorkspaces:  # noqa: ANN001 (a Path)
    """The two workspaces; the export's file is written under ``export_dir`` (the test's
    ``API_EXPORT_DIR``)."""
    alpha = Workspace.objects.create(name="alpha")
    beta = Workspace.objects.create(name="beta")
    a = make_hand_collection(A_NAME).collection
    b = make_answer_collection(B_NAME).collection
    Collection.objects.filter(pk=a.pk).update(workspace=alpha)
    Collection.objects.filter(pk=b.pk).update(workspace=beta)
    a.refresh_from_db()
    b.refresh_from_db()
    member = _member("alma", alpha, WorkspaceMember.Role.RESEARCHER)
    viewer = _member("vera", alpha, WorkspaceMember.Role.VIEWER)
    outsider = _member("bert", beta, WorkspaceMember.Role.RESEARCHER)
    a_job = Job.objects.create(kind="judge", collection=a, created_by=member, params={"k": 3})
    b_job = Job.objects.create(kind="judge", collection=b, created_by=outsider, params=B_JOB_PARAMS)
    export = Job.objects.create(
        kind="export",
        collection=a,
        created_by=member,
        state=Job.State.SUCCEEDED,
        params={"export": "qrels", "format": "csv", "params": {"collection": A_NAME}},
    )
    export_dir.mkdir(parents=True, exist_ok=True)
    (export_dir / "alpha-export.csv").write_bytes(EXPORT_BYTES)
    ExportFile.objects.create(
        job=export,
        path="alpha-export.csv",
        filename="alpha-hand-qrels.csv",
        content_type="text/csv; charset=utf-8",
        rows=1,
        size=len(EXPORT_BYTES),
        expires_at=timezone.now() + timedelta(hours=1),
    )
    return TwoWorkspaces(
        a=a,
        b=b,
        a_topic=Topic.objects.get(collection=a, external_id="ta"),
        b_topic=Topic.objects.filter(collection=b).order_by("external_id").first(),
        a_job=a_job,
        b_job=b_job,
        a_export=export,
        member=member,
        viewer=viewer,
        outsider=outsider,
    )
