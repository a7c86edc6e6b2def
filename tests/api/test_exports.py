"""Asynchronous exports: POST starts an export job (the task run in-process here; the worker
test runs it on a real worker), the job names its download once written, the download needs
a researcher's token and ends with the file's expiry; bad requests are 400s naming the field."""

import csv
import io
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Campaign
from annotation.queue import queue
from annotation.workspace.submission import submit
from api.export_job import sweep_expired_exports
from api.models import ExportFile
from crux_app.models import Job
from tests.annotation.campaign_data import make_annotator
from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db

RATING = {"rating": 4, "rationale": "=cmd\nsecond line", "rationale_start": 0, "rationale_end": 4}


@pytest.fixture
def export_dir(settings, tmp_path):
    settings.API_EXPORT_DIR = tmp_path / "exports"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    return settings.API_EXPORT_DIR


def _campaign(api, small) -> Campaign:
    carl, bert = make_annotator("carl"), make_annotator("bert")
    items = [
        {"topic": "duc04-testb-3", "position": 0, "passage": p.external_id}
        for p in small.passages[:2]
    ]
    body = {"name": "export me", "collection": "duc04", "items": items, "overlap": 2,
            "annotators": ["carl", "bert"]}  # fmt: skip
    slug = api.post("/api/v1/campaigns/", body, content_type="application/json").json()["slug"]
    campaign = Campaign.objects.get(slug=slug)
    for user in (carl, bert, carl):
        submit(queue.next_item(campaign, user).assignment, RATING, 1000)
    return campaign


def _start(api, django_capture_on_commit_callbacks, **body):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/v1/exports/", body, content_type="application/json")
    return response


def test_labels_export_job_then_download_until_it_expires(
    api, annotator_api, export_dir, django_capture_on_commit_callbacks
):
    small = make_small_collection("duc04")
    campaign = _campaign(api, small)
    response = _start(
        api, django_capture_on_commit_callbacks,
        kind="campaign-labels", params={"campaign": campaign.slug}, format="csv",
    )  # fmt: skip
    assert response.status_code == 202, response.content
    job_id = response.json()["job"]["id"]
    job = api.get(f"/api/v1/jobs/{job_id}/").json()
    assert (job["kind"], job["state"]) == ("export", "succeeded"), job
    download = job["download"]
    assert download["rows"] == 3 and download["filename"] == f"{campaign.slug}-labels.csv"
    assert download["url"] == f"http://testserver/api/v1/exports/{job_id}/download/"

    got = api.get(download["url"])
    assert got.status_code == 200
    assert got["Content-Type"].startswith("text/csv")
    assert "attachment" in got["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(b"".join(got.streaming_content).decode())))
    assert len(rows) == 3 and rows[0]["rationale"] == "'=cmd\nsecond line"
    assert annotator_api.get(download["url"]).status_code == 403
    anonymous = api.__class__("").get(download["url"])  # a token that is no token
    assert anonymous.status_code in (401, 403)

    export = ExportFile.objects.get(job_id=job_id)
    path = export_dir / export.path
    assert path.is_file()
    ExportFile.objects.filter(pk=export.pk).update(expires_at=timezone.now() - timedelta(1))
    assert api.get(download["url"]).status_code == 410
    assert not path.exists() and not ExportFile.objects.exists()
    assert api.get(f"/api/v1/jobs/{job_id}/").json()["download"] is None


def test_json_exports_of_judgments_and_the_expiry_sweep(
    api, export_dir, settings, django_capture_on_commit_callbacks
):
    small = make_small_collection("duc04")
    response = _start(
        api, django_capture_on_commit_callbacks,
        kind="judgments", params={"collection": "duc04", "judge": "smollm"}, format="json",
    )  # fmt: skip
    job_id = response.json()["job"]["id"]
    download = api.get(f"/api/v1/jobs/{job_id}/").json()["download"]
    body = json.loads(b"".join(api.get(download["url"]).streaming_content))
    assert body["count"] == small.llm.judgments.count() == download["rows"] > 0
    assert {r["judge"] for r in body["rows"]} == {"smollm"}
    assert sweep_expired_exports(timezone.now() + timedelta(seconds=10)) == 0
    expiry = timezone.now() + timedelta(seconds=settings.API_EXPORT_TTL_SECONDS + 1)
    assert sweep_expired_exports(expiry) == 1
    assert not any(export_dir.iterdir())


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "everything"}, "kind"),
        ({"kind": "campaign-labels", "params": {"campaign": "nope"}}, "params.campaign"),
        ({"kind": "campaign-labels", "params": {}}, "params.campaign"),
        ({"kind": "judgments", "params": {"collection": "duc04", "judge": "x"}}, "params.judge"),
        ({"kind": "qrels", "params": {"collection": "\x00"}}, "params.collection"),
        ({"kind": "qrels", "params": {"collection": "duc04"}, "format": "xlsx"}, "format"),
        ({"kind": "qrels", "params": {"collection": ["a"]}}, "params"),
    ],
)
def test_bad_export_requests_name_the_field(api, export_dir, body, field):
    make_small_collection("duc04")
    response = api.post("/api/v1/exports/", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert not Job.objects.filter(kind="export").exists()


def test_downloads_before_the_file_exists_are_404(api, researcher, export_dir):
    job = Job.objects.create(kind="export", params={}, created_by=researcher)  # theirs to see
    assert api.get(f"/api/v1/exports/{job.pk}/download/").status_code == 404
    assert api.get("/api/v1/exports/99999999/download/").status_code == 404
    assert api.get(f"/api/v1/jobs/{job.pk}/").json()["download"] is None


def test_export_files_are_private_like_uploads(api, export_dir, django_capture_on_commit_callbacks):
    """Folder 0700 and file 0600 whatever the umask, an existing 0755 folder included."""
    import os
    import stat

    export_dir.mkdir(mode=0o755)
    export_dir.chmod(0o755)
    old_umask = os.umask(0o022)
    try:
        make_small_collection("duc04")
        response = _start(
            api, django_capture_on_commit_callbacks,
            kind="qrels", params={"collection": "duc04", "source": "imported"}, format="csv",
        )  # fmt: skip
    finally:
        os.umask(old_umask)
    assert response.status_code == 202, response.content
    export = ExportFile.objects.get()
    assert stat.S_IMODE(export_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((export_dir / export.path).stat().st_mode) == 0o600
