"""run_batches: live absolute progress, per-batch retries with recorded errors, final state."""

import pytest

from crux_app.jobs.runner import fail_job_on_error, run_batches, traceback_excerpt
from crux_app.models import Job


@pytest.fixture
def job(db) -> Job:
    return Job.objects.create(kind="generate_answers")


def test_batches_succeed_with_live_absolute_progress(job):
    seen_done = []

    def process(batch):
        seen_done.append(Job.objects.get(pk=job.pk).done)  # what the Jobs page shows meanwhile
        return {"generated": len(batch)}

    run_batches(job, [[1, 2], [3], [4, 5]], process, retries=0)

    job.refresh_from_db()
    assert seen_done == [0, 2, 3]
    assert job.state == Job.State.SUCCEEDED
    assert (job.done, job.total, job.attempts) == (5, 5, 1)
    assert job.message == "generated 5"
    assert job.started_at is not None and job.finished_at >= job.started_at
    assert job.errors == []


def test_running_a_finished_job_again_changes_nothing(job):
    run_batches(job, [[1, 2], [3]], lambda batch: None)
    job.refresh_from_db()
    finished_at = job.finished_at
    calls = []
    run_batches(job, [[1, 2], [3]], calls.append)  # a task delivered again after the end
    job.refresh_from_db()
    assert calls == []
    assert (job.done, job.total, job.attempts) == (3, 3, 1)
    assert (job.state, job.finished_at) == (Job.State.SUCCEEDED, finished_at)


def test_flaky_batch_is_retried_and_its_error_recorded(job):
    calls = []

    def process(batch):
        calls.append(batch)
        if len(calls) == 2:
            raise ConnectionError("database went away")

    run_batches(job, [["a"], ["b"], ["c"]], process, retries=1)

    job.refresh_from_db()
    assert calls == [["a"], ["b"], ["b"], ["c"]]
    assert job.state == Job.State.SUCCEEDED
    assert job.done == 3
    [error] = job.errors
    assert error["message"] == "ConnectionError: database went away"
    assert (error["batch"], error["try_number"], error["job_attempt"]) == (1, 1, 1)
    assert "Traceback (most recent call last)" in error["traceback"]
    assert "database went away" in error["traceback"]


def test_batch_failing_every_try_fails_the_job_but_later_batches_run(job):
    processed = []

    def process(batch):
        if batch == ["bad"]:
            raise ValueError("cannot parse item 'bad'")
        processed.append(batch)
        return {"stored": 1}

    run_batches(job, [["ok1"], ["bad"], ["ok2"]], process, retries=2)

    job.refresh_from_db()
    assert processed == [["ok1"], ["ok2"]]
    assert job.state == Job.State.FAILED
    assert job.message == "1 of 3 batches failed; stored 2"
    assert job.done == 2  # items of batches that succeeded; the failed batch is not counted
    assert [e["try_number"] for e in job.errors] == [1, 2, 3]
    assert {e["batch"] for e in job.errors} == {1}


def test_retries_default_to_the_setting(job, settings):
    settings.JOB_BATCH_RETRIES = 0
    tries = []
    run_batches(job, [[1]], lambda batch: tries.append(1) or 1 / 0)
    job.refresh_from_db()
    assert len(tries) == 1 and len(job.errors) == 1
    assert job.errors[0]["message"] == "ZeroDivisionError: division by zero"


def test_no_batches_succeeds_with_nothing_to_do(job):
    run_batches(job, [], lambda batch: None)
    job.refresh_from_db()
    assert (job.state, job.done, job.total, job.progress_percent) == ("succeeded", 0, 0, 100)


def test_error_outside_the_batches_fails_the_job(job):
    with fail_job_on_error(job):
        raise LookupError("collection 7 is gone")
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.message == "collection 7 is gone"
    assert job.errors[0]["message"] == "LookupError: collection 7 is gone"
    assert "batch" not in job.errors[0]


def test_traceback_excerpt_keeps_the_end():
    try:
        raise RuntimeError("x" * 5000 + "THE END")
    except RuntimeError as exc:
        excerpt = traceback_excerpt(exc, limit=100)
    assert excerpt.startswith("...") and len(excerpt) == 103
    assert excerpt.rstrip().endswith("THE END")
