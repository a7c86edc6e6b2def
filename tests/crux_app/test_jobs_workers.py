"""Who serves a queue, as the workers report it: a pending job's page counts the slots of the
workers consuming its queue and what holds them (a job of another queue on a worker that
consumes both is what made an upload wait 35 s behind a GPU job while its page said "0
running"), and says plainly when no worker serves the queue."""

from datetime import timedelta

import pytest
from celery.utils.nodenames import gethostname
from django.urls import reverse
from django.utils import timezone

from crux_app.celery import app as celery_app
from crux_app.jobs.heartbeat import (
    STALE_AFTER_SECONDS,
    forget_worker,
    live_workers,
    record_heartbeat,
)
from crux_app.jobs.status import queue_place, queue_workers
from crux_app.models import Job, WorkerHeartbeat

pytestmark = pytest.mark.django_db

GPU_KIND, CPU_KIND = "generate_answers", "import"


def _running_on(worker: str, kind: str = GPU_KIND) -> Job:
    return Job.objects.create(kind=kind, state=Job.State.RUNNING, worker=worker, total=9)


def test_a_worker_on_both_queues_busy_with_a_gpu_job_holds_up_a_cpu_job(
    researcher_client, researcher
):
    record_heartbeat("both@host", ["gpu", "cpu"], 1)
    _running_on("both@host")
    upload = Job.objects.create(kind=CPU_KIND, created_by=researcher)  # theirs to see

    place = queue_place(upload, with_workers=True)
    assert (place.queue, place.position, place.running) == ("cpu", 1, 0)
    workers = place.workers
    assert (workers.slots, workers.busy, workers.busy_elsewhere, workers.free) == (1, 1, 1, 0)

    html = researcher_client.get(reverse("job-detail", args=[upload.pk])).content.decode()
    assert '1 worker slot serves the <span class="mono">cpu</span> queue: 1 busy (1 with a ' in html
    assert "job of another queue), 0 free." in html


def test_a_worker_of_its_own_for_the_cpu_queue_is_free(researcher_client, researcher):
    record_heartbeat("gpu@host", ["gpu"], 1)
    record_heartbeat("cpu@host", ["cpu"], 1)
    _running_on("gpu@host")
    upload = Job.objects.create(kind=CPU_KIND, created_by=researcher)  # theirs to see
    assert queue_workers("cpu").free == 1 and queue_workers("gpu").free == 0
    html = researcher_client.get(reverse("job-detail", args=[upload.pk])).content.decode()
    assert 'the <span class="mono">cpu</span> queue: all free.' in html


def test_without_a_live_worker_the_page_says_none_serves_the_queue(researcher_client, researcher):
    record_heartbeat("old@host", ["gpu", "cpu"], 2)
    WorkerHeartbeat.objects.update(
        seen_at=timezone.now() - timedelta(seconds=STALE_AFTER_SECONDS + 1)
    )
    record_heartbeat("gpu@host", ["gpu"], 1)
    assert [w.hostname for w in live_workers()] == ["gpu@host"]
    upload = Job.objects.create(kind=CPU_KIND, created_by=researcher)  # theirs to see
    html = researcher_client.get(reverse("job-detail", args=[upload.pk])).content.decode()
    assert 'No worker is serving the <span class="mono">cpu</span> queue</b>' in html
    assert queue_workers("gpu").slots == 1

    forget_worker("gpu@host")
    assert queue_workers("gpu").slots == 0


def test_a_heartbeat_refreshes_the_workers_row():
    record_heartbeat("w@host", ["gpu"], 1)
    first = WorkerHeartbeat.objects.get().seen_at
    record_heartbeat("w@host", ["cpu", "gpu"], 3)
    row = WorkerHeartbeat.objects.get()
    assert (row.queues, row.concurrency) == (["cpu", "gpu"], 3) and row.seen_at >= first


@celery_app.task(name="tests.mark_running_probe")
def mark_running_probe(job_id: int) -> None:
    Job.objects.get(pk=job_id).mark_running(total=3)


def test_a_job_records_the_worker_that_runs_it():
    job = Job.objects.create(kind=GPU_KIND)
    mark_running_probe.apply(args=[job.pk])  # a task's request names its worker's node
    job.refresh_from_db()
    assert (job.state, job.worker) == (Job.State.RUNNING, gethostname())
    job.mark_running(total=3)  # outside any task: no worker
    job.refresh_from_db()
    assert job.worker == ""
