"""A worker on another host (a network namespace of this machine, reaching PostgreSQL and Redis
over a veth link) joins the queues, shows on /readyz and takes the job's shard."""

from __future__ import annotations

import json
import subprocess
import time
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.models import Job, JobShard, WorkerHeartbeat
from tests.operations.other_host import Forwarder, Namespace, can_make_namespaces
from tests.worker.job_waiting import finished, wait_for
from tests.worker_fixtures import (
    BROKER_URL,
    CELERY,
    FAST_LEASES,
    RESULT_URL,
    WorkerProcess,
    _test_database_url,
    wait_until_ready,
    worker_environment,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

RECORD = {"id": "q1", "question": "Who wrote Hamlet?", "answers": ["Shakespeare"], "contexts": []}


def _via(url: str, forwarder: Forwarder) -> str:
    """``url`` with its host and port replaced by the forwarder's."""
    parts = urlsplit(url)
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials + '@' if credentials else ''}{forwarder.host}:{forwarder.port}"
    return urlunsplit(parts._replace(netloc=netloc))


@pytest.fixture
def other_host():
    # CI and the sessions run as root with iproute2: a machine without them fails here
    # rather than skipping the deployment check.
    assert can_make_namespaces(), "needs root and `ip netns` (a second network namespace)"
    namespace = Namespace()
    yield namespace
    namespace.remove()


def test_a_worker_on_another_host_joins_the_queues_and_takes_the_shard(
    other_host, start_worker, tmp_path, settings_override, researcher_client, client
):
    database, broker, results = (
        urlsplit(u) for u in (_test_database_url(), BROKER_URL, RESULT_URL)
    )
    forwarders = [
        Forwarder(other_host.host_address, database.port or 5432),
        Forwarder(other_host.host_address, broker.port or 6379),
    ]
    assert results.port == broker.port  # one Redis server: one forwarder for both
    env = worker_environment(
        _via(BROKER_URL, forwarders[1]),
        _via(RESULT_URL, forwarders[1]),
        _via(_test_database_url(), forwarders[0]),
    )
    env.update(FAST_LEASES)
    env["UPLOAD_DIR"] = str(settings.UPLOAD_DIR)  # a shared mount on a real second host
    log_path = tmp_path / "other-host-worker.log"
    command = other_host.command(
        [
            str(CELERY), "-A", "crux_app", "worker", "-Q", "gpu,cpu", "--pool", "solo",
            "--concurrency", "1", "--without-heartbeat", "--without-gossip", "--without-mingle",
            "--loglevel", "INFO", "--hostname", "otherhost@%h",
        ]
    )  # fmt: skip
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    worker = WorkerProcess(process, log_path, env)
    try:
        wait_until_ready(worker)
        deadline = time.monotonic() + 30
        while not WorkerHeartbeat.objects.filter(hostname__startswith="otherhost@").exists():
            assert time.monotonic() < deadline, worker.log_tail()
            time.sleep(0.1)
        row = WorkerHeartbeat.objects.get(hostname__startswith="otherhost@")
        assert row.queues == ["cpu", "gpu"]
        checks = client.get("/readyz").json()["checks"]
        assert checks["queue:cpu"]["detail"] == "1 live worker(s)"

        body = (json.dumps(RECORD) + "\n").encode()
        researcher_client.post(
            reverse("upload"),
            {"format": "qa", "collection": "nq", "file": SimpleUploadedFile("qa.jsonl", body)},
        )
        job = wait_for(Job.objects.get(kind="import"), finished, worker)
        assert job.state == Job.State.SUCCEEDED, worker.log_tail()
        assert job.worker.startswith("otherhost@")
        assert JobShard.objects.get(job=job).worker.startswith("otherhost@")
    finally:
        worker.stop()
        for forwarder in forwarders:
            forwarder.close()


@pytest.fixture
def settings_override(tmp_path, settings, monkeypatch):
    """Uploads under tmp_path (read by the other host's worker through the same path)."""
    settings.UPLOAD_DIR = tmp_path / "uploads"
    monkeypatch.setenv("UPLOAD_DIR", str(settings.UPLOAD_DIR))
