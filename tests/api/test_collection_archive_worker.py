"""A collection's archive job on a real worker (queue ``cpu``): started through the API, its
download is a complete archive (the manifest's checksums hold) for the researcher's token."""

import io
import json
import tarfile
import time

import httpx
import pytest

from api.tokens import issue_token
from tests.crux_app.factories import make_small_collection

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def export_dir(tmp_path, monkeypatch, settings):
    """Shared by the worker and the live server: set before ``start_worker`` copies the
    environment."""
    folder = tmp_path / "exports"
    monkeypatch.setenv("API_EXPORT_DIR", str(folder))
    settings.API_EXPORT_DIR = folder
    return folder


def test_the_archive_job_runs_on_the_worker(live_server, researcher, export_dir, start_worker):
    worker = start_worker()
    make_small_collection("duc04")
    headers = {"Authorization": f"Bearer {issue_token(researcher, 'worker')[1]}"}
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=30) as api:
        started = api.post("/api/v1/collections/duc04/archive/", json={})
        assert started.status_code == 202, started.text
        job = started.json()["job"]
        deadline = time.monotonic() + 60
        while job["state"] in ("pending", "running") and time.monotonic() < deadline:
            time.sleep(0.25)
            job = api.get(f"/api/v1/jobs/{job['id']}/").json()
        assert job["state"] == "succeeded", worker.log_tail()
        got = api.get(job["download"]["url"])
        assert got.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(got.content), mode="r:gz") as archive:
        manifest = json.loads(archive.extractfile("manifest.json").read())
        topics = archive.extractfile("rows/crux_app.Topic.jsonl").read().splitlines()
    assert manifest["collection"] == "duc04" and len(topics) == 2
    assert httpx.get(job["download"]["url"]).status_code in (401, 403)
