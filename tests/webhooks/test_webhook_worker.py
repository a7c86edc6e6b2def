"""Webhooks end to end with real Celery processes on the ``webhooks`` queue: a job's event
delivered after a retry; a series that fails runs to the declared number of attempts (not
Celery's default 3 retries); a stalled delivery is sent again by the sweep that ``celery beat``
schedules, with no other task running."""

from __future__ import annotations

import json
import subprocess
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from crux_app.models import Job
from tests.crux_app.factories import make_collection
from tests.webhooks.endpoints import hooks_admin
from tests.worker_fixtures import (
    BROKER_URL,
    CELERY,
    RESULT_URL,
    _test_database_url,
    worker_environment,
)
from webhooks.event_types import JOB_SUCCEEDED, TEST
from webhooks.events import send_test_event
from webhooks.models import Delivery, Endpoint, Event
from webhooks.signing import verify

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SECRET = "whsec-worker-test-0123456789"
TIMEOUT_S = 60
QUEUE = settings.WEBHOOKS_QUEUE


@pytest.fixture
def webhook_env(monkeypatch):
    """The worker reaches 127.0.0.1 and retries after 1 s: request before ``start_worker``,
    which copies the environment at its setup."""
    monkeypatch.setenv("WEBHOOKS_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("WEBHOOKS_RETRY_BASE_SECONDS", "1")


def _wait_until_finished(delivery: Delivery, worker) -> Delivery:  # noqa: ANN001 (WorkerProcess)
    deadline = time.monotonic() + TIMEOUT_S
    while delivery.state == Delivery.State.PENDING and time.monotonic() < deadline:
        time.sleep(0.2)
        delivery.refresh_from_db()
    assert delivery.state != Delivery.State.PENDING, worker.log_tail()
    return delivery


def test_job_event_is_delivered_by_the_worker_with_a_retry(webhook_env, start_worker, receiver):
    receiver.fail_first = 1
    worker = start_worker(queues=QUEUE)  # no `cpu` worker: deliveries need none
    collection = make_collection("hooked")
    Endpoint.objects.create(
        url=receiver.url,
        secret=SECRET,
        collection=collection,
        events=[JOB_SUCCEEDED],
        created_by=hooks_admin(),  # its maker sees the collection: the event goes out
    )
    job = Job.objects.create(kind="judge", collection=collection)
    job.state, job.message = Job.State.SUCCEEDED, "judged 3"
    job.save(update_fields=["state", "message"])
    delivery = _wait_until_finished(Delivery.objects.get(), worker)
    assert delivery.state == Delivery.State.SUCCEEDED, worker.log_tail()
    attempts = list(delivery.attempt_rows.values_list("number", "status_code"))
    assert attempts == [(1, 500), (2, 200)]
    assert len(receiver.requests) == 2
    last = receiver.requests[-1]
    headers = last.headers
    assert verify(SECRET, last.body, headers["X-Crux-Timestamp"], headers["X-Crux-Signature"])
    payload = json.loads(last.body)
    assert (payload["type"], payload["data"]["job"]["id"]) == (JOB_SUCCEEDED, job.pk)


def test_a_failing_series_runs_to_the_declared_attempts(webhook_env, start_worker, receiver):
    """Six attempts, as WEBHOOKS_MAX_ATTEMPTS says; Celery's own default would stop after four
    and leave the delivery pending."""
    receiver.fail_first = 100
    fast = {"WEBHOOKS_RETRY_BASE_SECONDS": "0.1", "WEBHOOKS_MAX_ATTEMPTS": "6"}
    worker = start_worker(extra_env=fast, queues=QUEUE)

    endpoint = Endpoint.objects.create(url=receiver.url, secret=SECRET, events=[JOB_SUCCEEDED])
    delivery = _wait_until_finished(send_test_event(endpoint), worker)
    assert (delivery.state, delivery.attempts) == (Delivery.State.FAILED, 6), worker.log_tail()
    assert len(receiver.requests) == 6


def test_beat_sweeps_a_stalled_delivery_with_no_other_task(
    webhook_env, start_worker, receiver, tmp_path
):
    """A delivery whose task was lost (never queued: the broker was away) is sent by the sweep
    that `celery beat` schedules every WEBHOOKS_SWEEP_SECONDS."""
    endpoint = Endpoint.objects.create(url=receiver.url, secret=SECRET, events=[JOB_SUCCEEDED])
    event = Event.objects.create(key="test:stalled", type=TEST, payload={"type": TEST})
    delivery = Delivery.objects.create(event=event, endpoint=endpoint)  # no task sent
    Delivery.objects.filter(pk=delivery.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    worker = start_worker(extra_env={"WEBHOOKS_SWEEP_SECONDS": "1"}, queues=QUEUE)
    env = {
        **worker_environment(BROKER_URL, RESULT_URL, _test_database_url()),
        "WEBHOOKS_SWEEP_SECONDS": "1",
    }
    log_path = tmp_path / "beat.log"
    with log_path.open("wb") as log:
        beat = subprocess.Popen(
            [
                str(CELERY),
                "-A",
                "crux_app",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(tmp_path / "beat-schedule"),
            ],  # fmt: skip
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        delivery = _wait_until_finished(delivery, worker)
        assert delivery.state == Delivery.State.SUCCEEDED, log_path.read_text()
        assert len(receiver.requests) == 1
    finally:
        beat.terminate()
        beat.wait(timeout=15)
