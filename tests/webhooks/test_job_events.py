"""Job events are recorded once per (job, event): on the save that writes the final state, on
a duplicate save never again, and by the sweep for a state written without a save."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.models import Job
from tests.crux_app.factories import make_collection
from tests.webhooks.endpoints import make_endpoint
from webhooks.event_types import IMPORT_FAILED, JOB_FAILED, JOB_SUCCEEDED
from webhooks.job_events import sweep
from webhooks.models import Delivery, Event

pytestmark = pytest.mark.django_db


def _job(collection, kind="judge", params=None) -> Job:
    return Job.objects.create(kind=kind, collection=collection, params=params or {"k": 1})


def _set_state(job: Job, state: str, message: str = "") -> None:
    job.state, job.message = state, message
    job.save(update_fields=["state", "message"])


def test_transition_into_succeeded_is_sent_once(django_capture_on_commit_callbacks):
    collection = make_collection("c1")
    endpoint = make_endpoint(collection=collection)
    job = _job(collection)
    _set_state(job, Job.State.RUNNING)
    assert not Event.objects.exists()
    with django_capture_on_commit_callbacks() as queued:
        _set_state(job, Job.State.SUCCEEDED, "judged 4")
    event = Event.objects.get()
    assert (event.key, event.type, event.job_id) == (
        f"job:{job.pk}:job.succeeded",
        JOB_SUCCEEDED,
        job.pk,
    )
    data = event.payload["data"]["job"]
    assert (data["id"], data["kind"], data["state"], data["message"]) == (
        job.pk,
        "judge",
        "succeeded",
        "judged 4",
    )
    assert data["url"] == f"http://localhost:8000/jobs/{job.pk}/"
    assert event.payload["collection"] == {"id": collection.pk, "name": "c1"}
    assert Delivery.objects.get().endpoint == endpoint
    assert len(queued) == 1  # the delivery's task, sent after the commit
    # A duplicate save, a save of other fields and the sweep send nothing more.
    _set_state(job, Job.State.SUCCEEDED, "judged 4")
    job.done = 4
    job.save(update_fields=["done"])
    assert sweep() == 0
    assert (Event.objects.count(), Delivery.objects.count()) == (1, 1)


def test_a_failed_import_gives_job_failed_and_import_failed():
    collection = make_collection("c1")
    make_endpoint()
    job = _job(collection, kind="import", params={"format": "trec_run", "source": "/srv/x"})
    _set_state(job, Job.State.FAILED, "run.txt:3: bad score")
    assert sorted(Event.objects.values_list("type", flat=True)) == [IMPORT_FAILED, JOB_FAILED]
    assert "source" not in Event.objects.first().payload["data"]["job"]["params"]  # server path
    assert Delivery.objects.count() == 2


def test_state_written_without_a_save_is_found_by_the_sweep_once():
    collection = make_collection("c1")
    make_endpoint()
    job = _job(collection)
    # The runner may finish with a queryset update: no post_save.
    Job.objects.filter(pk=job.pk).update(state=Job.State.FAILED, finished_at=job.created_at)
    assert not Event.objects.exists()
    assert sweep() == 1
    assert sweep() == 0
    assert Event.objects.get().type == JOB_FAILED
    # Retried and now succeeded: the new state's event comes once too.
    Job.objects.filter(pk=job.pk).update(state=Job.State.SUCCEEDED)
    assert sweep() == 1
    assert sorted(Event.objects.values_list("type", flat=True)) == [JOB_FAILED, JOB_SUCCEEDED]


def test_job_finish_is_seen(django_capture_on_commit_callbacks):
    make_endpoint()
    job = _job(make_collection("c1"))
    job.finish(Job.State.SUCCEEDED, "done")
    sweep()  # whichever way finish() writes the state
    assert list(Event.objects.values_list("type", flat=True)) == [JOB_SUCCEEDED]


def test_endpoints_get_their_collection_and_events_only():
    c1, c2 = make_collection("c1"), make_collection("c2")
    everything = make_endpoint()
    only_c2 = make_endpoint(collection=c2)
    only_failures = make_endpoint(events=(JOB_FAILED,))
    make_endpoint(active=False)
    _set_state(_job(c1), Job.State.SUCCEEDED)
    assert set(Delivery.objects.values_list("endpoint", flat=True)) == {everything.pk}
    _set_state(_job(c2), Job.State.FAILED)
    failed = Delivery.objects.filter(event__type=JOB_FAILED)
    assert set(failed.values_list("endpoint", flat=True)) == {
        everything.pk,
        only_c2.pk,
        only_failures.pk,
    }


def test_nothing_is_recorded_without_an_active_endpoint():
    make_endpoint(active=False)
    job = _job(make_collection("c1"))
    _set_state(job, Job.State.SUCCEEDED)
    assert sweep() == 0
    assert not Event.objects.exists()


def test_cancelled_and_unfinished_jobs_send_nothing():
    make_endpoint()
    collection = make_collection("c1")
    for state in (Job.State.PENDING, Job.State.RUNNING, Job.State.CANCELLED):
        _set_state(_job(collection), state)
    assert sweep() == 0
    assert not Event.objects.exists()


def test_the_command_runs_the_sweep():
    make_endpoint()
    job = _job(make_collection("c1"))
    Job.objects.filter(pk=job.pk).update(state=Job.State.SUCCEEDED, finished_at=job.created_at)
    out = StringIO()
    call_command("send_webhook_events", stdout=out)
    assert out.getvalue().strip() == "1 job event(s) emitted"
    assert Event.objects.get().type == JOB_SUCCEEDED


def test_a_job_whose_shards_all_fail_sends_job_failed_once(settings):
    """Four shards, each a task of its own whose batches all fail: the job fails once, and
    the duplicate tasks, the sweep and a later save add no event and no delivery."""
    from crux_app.jobs.runner import run_batches

    settings.JOB_MAX_SHARDS = 4
    settings.JOB_BATCH_RETRIES = 0
    endpoint = make_endpoint(events=(JOB_FAILED,))
    job = _job(make_collection("c1"), kind="generate_answers")

    def broken(batch):
        raise RuntimeError(f"batch {batch} failed")

    batches = [[1], [2], [3], [4]]
    for _ in range(3):  # the shards' tasks, one more and a redelivered one
        run_batches(job, batches, broken)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.shards.filter(state="failed").count() == 4
    job.save()  # a save that writes the same state again
    assert sweep() == 0
    event = Event.objects.get()
    assert (event.key, event.type) == (f"job:{job.pk}:{JOB_FAILED}", JOB_FAILED)
    assert list(Delivery.objects.values_list("endpoint", flat=True)) == [endpoint.pk]


def test_the_idempotency_key_is_unique_in_the_database():
    from django.db import IntegrityError, transaction

    Event.objects.create(key="job:1:job.failed", type=JOB_FAILED)
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(key="job:1:job.failed", type=JOB_FAILED)
