"""An asynchronous export through the API on a real worker (queue ``cpu``): the client starts
it, ``wait`` follows the job, the job names its download, the file comes with the token and
not without it (issue #26)."""

import csv
import io

import httpx
import pytest
from crux_client import Client

from annotation.models import Campaign
from annotation.queue import queue
from annotation.workspace.submission import submit
from api.tokens import issue_token
from tests.annotation.campaign_data import make_annotator
from tests.crux_app.factories import make_small_collection

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

RATING = {"rating": 2, "rationale": "", "rationale_start": None, "rationale_end": None}


@pytest.fixture
def export_dir(tmp_path, monkeypatch, settings):
    """The worker and this process (the live server) share the export folder: set before
    ``start_worker``, which copies the environment at its setup."""
    folder = tmp_path / "exports"
    monkeypatch.setenv("API_EXPORT_DIR", str(folder))
    settings.API_EXPORT_DIR = folder
    return folder


def test_labels_export_runs_on_the_worker(live_server, researcher, export_dir, start_worker):
    worker = start_worker()
    small = make_small_collection("duc04")
    annotators = [make_annotator(name) for name in ("carl", "bert")]
    token = issue_token(researcher, "worker")[1]
    items = [
        {"topic": "duc04-testb-3", "position": 0, "passage": p.external_id}
        for p in small.passages[:2]
    ]
    with Client(live_server.url, token) as api:
        slug = api.create_campaign("exported", "duc04", items, overlap=2,
                                   annotators=["carl", "bert"])["slug"]  # fmt: skip
        campaign = Campaign.objects.get(slug=slug)
        for user in (*annotators, annotators[0]):
            submit(queue.next_item(campaign, user).assignment, RATING, 800)
        job = api.export("campaign-labels", campaign=slug)
        assert (job["kind"], job["state"]) == ("export", "pending")
        done = api.wait(job, timeout=60, poll=0.25, progress=False)
        assert done["state"] == "succeeded", worker.log_tail()
        assert done["download"]["rows"] == 3
        rows = list(csv.DictReader(io.StringIO(api.download(done).decode())))
        assert sorted(r["annotator"] for r in rows) == ["bert", "carl", "carl"]
    assert len(list(export_dir.iterdir())) == 1  # the file the worker wrote, no leftovers
    assert httpx.get(done["download"]["url"]).status_code in (401, 403)
