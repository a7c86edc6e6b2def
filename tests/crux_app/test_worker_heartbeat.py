"""A real worker reports the queues it consumes as soon as it is ready, and a pending job's page
then counts its slot instead of saying that no worker serves the queue."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from crux_app.models import Job, WorkerHeartbeat

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_started_worker_reports_its_queues(start_worker, researcher, researcher_client):
    worker = start_worker()
    deadline = time.monotonic() + 30
    while not WorkerHeartbeat.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    row = WorkerHeartbeat.objects.get()
    assert row.hostname.startswith("jobtest0@"), worker.log_tail()
    assert (row.queues, row.concurrency) == (["cpu", "gpu"], 1)

    # A job of a kind whose task the worker never sees stays pending: its page counts the slot.
    pending = Job.objects.create(kind="import", created_by=researcher)
    html = researcher_client.get(reverse("job-detail", args=[pending.pk])).content.decode()
    assert 'the <span class="mono">cpu</span> queue: all free.' in html
