"""The Python client against a live server and a real worker: an import sent through the API
is run by the worker; ``wait`` follows it to the end (issue #26)."""

import pandas as pd
import pytest
from crux_client import Client

from api.tokens import issue_token
from crux_app.models import Topic

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def upload_dir(settings, tmp_path, monkeypatch):
    """The folder's autouse upload folder, shared with the worker, which reads the upload that
    this process (the live server) stores: autouse, so it is set before ``start_worker`` copies
    the environment."""
    folder = tmp_path / "uploads"
    monkeypatch.setenv("UPLOAD_DIR", str(folder))
    settings.UPLOAD_DIR = folder
    return folder


def test_client_upload_is_run_by_the_worker(live_server, researcher, start_worker):
    start_worker()
    topics = pd.DataFrame({"qid": ["q1", "q2", "q3"], "query": ["a", "b", "c"]})
    with Client(live_server.url, issue_token(researcher, "worker")[1]) as api:
        job = api.upload("via-worker", "topics", topics)
        assert job["state"] == "pending"
        done = api.wait(job, timeout=60, poll=0.25, progress=False)
    assert (done["state"], done["done"], done["total"]) == ("succeeded", 1, 1)
    assert Topic.objects.filter(collection__name="via-worker").count() == 3
