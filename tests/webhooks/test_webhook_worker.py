"""A job's webhook delivered end to end: the job's final save records the event, a real celery
worker on the ``cpu`` queue POSTs it to a real HTTP server that fails the first time, and the
retry (after its backoff) gets through."""

from __future__ import annotations

import json
import time

import pytest

from crux_app.models import Job
from tests.crux_app.factories import make_collection
from tests.webhooks.receiver import Receiver
from webhooks.event_types import JOB_SUCCEEDED
from webhooks.models import Delivery, Endpoint
from webhooks.signing import verify

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SECRET = "whsec-worker-test-0123456789"
TIMEOUT_S = 60


@pytest.fixture
def webhook_env(monkeypatch):
    """The worker reaches 127.0.0.1 and retries after 1 s: request before ``start_worker``,
    which copies the environment at its setup."""
    monkeypatch.setenv("WEBHOOKS_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("WEBHOOKS_RETRY_BASE_SECONDS", "1")


def test_job_event_is_delivered_by_the_worker_with_a_retry(webhook_env, start_worker):
    receiver = Receiver(fail_first=1).start()
    try:
        worker = start_worker()
        collection = make_collection("hooked")
        Endpoint.objects.create(
            url=receiver.url, secret=SECRET, collection=collection, events=[JOB_SUCCEEDED]
        )
        job = Job.objects.create(kind="judge", collection=collection)
        job.state, job.message = Job.State.SUCCEEDED, "judged 3"
        job.save(update_fields=["state", "message"])
        delivery = Delivery.objects.get()
        deadline = time.monotonic() + TIMEOUT_S
        while delivery.state == Delivery.State.PENDING and time.monotonic() < deadline:
            time.sleep(0.2)
            delivery.refresh_from_db()
        assert delivery.state == Delivery.State.SUCCEEDED, worker.log_tail()
        attempts = list(delivery.attempt_rows.values_list("number", "status_code"))
        assert attempts == [(1, 500), (2, 200)]
        assert len(receiver.requests) == 2
        last = receiver.requests[-1]
        headers = last.headers
        assert verify(SECRET, last.body, headers["X-Crux-Timestamp"], headers["X-Crux-Signature"])
        payload = json.loads(last.body)
        assert (payload["type"], payload["data"]["job"]["id"]) == (JOB_SUCCEEDED, job.pk)
    finally:
        receiver.stop()
