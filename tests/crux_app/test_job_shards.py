"""Shards of one job: planned once, claimed under leases, taken over after the grace period,
counted once whoever runs them; the job ends when its last shard does; retry runs only the
shards that did not succeed; a task for a finished job or a leased shard does nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from crux_app.jobs.runner import job_to_run, run_batches
from crux_app.jobs.service import cancel_job, retry_job
from crux_app.jobs.shard_status import shards_status
from crux_app.jobs.shards import (
    claim_shard,
    end_shard,
    finish_job_if_done,
    item_key,
    plan_job,
    record_batch,
    renew_lease,
    shard_cuts,
)
from crux_app.jobs.usage import ModelUsage
from crux_app.models import Job, JobShard

pytestmark = pytest.mark.django_db


@pytest.fixture
def job() -> Job:
    return Job.objects.create(kind="generate_answers")


def _stall(shard: JobShard, seconds: float = 3600) -> None:
    JobShard.objects.filter(pk=shard.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_shard_cuts_are_equal_runs_of_batches_up_to_the_maximum():
    assert shard_cuts(10, 4) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert shard_cuts(3, 64) == [(0, 1), (1, 2), (2, 3)]
    assert shard_cuts(0, 4) == []


def test_items_are_matched_by_their_json_text():
    from evaluation.crux.judge_scope import ItemKey

    assert item_key(ItemKey(1, 2, 3)) == item_key([1, 2, 3]) == "[1,2,3]"
    assert item_key(7) == "7" and item_key({"b": 1, "a": 2}) == item_key({"a": 2, "b": 1})


def test_the_first_plan_is_stored_once_and_starts_the_attempt(job, settings):
    settings.JOB_MAX_SHARDS = 2
    started = plan_job(job, [[1, 2], [3], [4, 5]], note="already judged 4")
    assert started.planned_now and started.job.state == Job.State.RUNNING
    again = plan_job(job, [[9]], note="other")  # a second task re-plans: the stored plan holds
    assert not again.planned_now
    job.refresh_from_db()
    assert (job.total, job.attempts, job.plan_note) == (5, 1, "already judged 4")
    shards = list(job.shards.all())
    assert [(s.first_batch, s.batches, s.size) for s in shards] == [
        (0, [[1, 2], [3]], 3),
        (2, [[4, 5]], 2),
    ]


def test_a_live_lease_is_not_claimed_twice_and_a_stale_one_is_taken_over(job, settings):
    settings.JOB_MAX_SHARDS = 2
    plan_job(job, [[1], [2]])
    first = claim_shard(job.pk, "a@host")
    second = claim_shard(job.pk, "b@host")
    assert (first.index, second.index) == (0, 1)
    assert claim_shard(job.pk, "c@host") is None  # both leases alive: nothing to take

    _stall(first)
    taken = claim_shard(job.pk, "c@host")
    assert (taken.pk, taken.worker, taken.stalled_worker) == (first.pk, "c@host", "a@host")
    assert taken.lease_token != first.lease_token
    # The stalled worker comes back: its lease is gone, it counts and ends nothing.
    assert not renew_lease(first)
    assert not record_batch(first, 0, {"judged": 1})
    assert not end_shard(first, JobShard.State.SUCCEEDED)
    assert record_batch(taken, 0, {"judged": 1}) and end_shard(taken, JobShard.State.SUCCEEDED)
    job.refresh_from_db()
    assert job.done == 1

    status = shards_status(job)
    assert status.text == "2 shards: 1 done, 1 running on b@host, 0 waiting"
    _stall(second, seconds=settings.JOB_LEASE_GRACE_SECONDS + 5)
    [stalled] = shards_status(job).stalled
    assert stalled.text.startswith("shard 1 stalled: worker b@host held it and its heartbeat")
    assert "another worker resumes it" not in stalled.text  # no promise nobody may keep


def test_the_page_says_which_worker_resumes_a_stalled_shard(job, researcher_client, researcher):
    Job.objects.filter(pk=job.pk).update(created_by=researcher)  # no collection: theirs to see
    plan_job(job, [[1], [2]])
    shard = claim_shard(job.pk, "a@host")
    _stall(shard)
    assert claim_shard(job.pk, "c@host").index == 0  # the stalled shard first
    html = researcher_client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Shard 0 stalled on a@host, resuming on worker c@host." in html


def test_progress_counts_and_messages_add_up_over_shards_run_by_two_workers(job, settings):
    settings.JOB_MAX_SHARDS = 3
    plan_job(job, [[1, 2], [3], [4]], note="already judged 2")
    for worker in ("a@host", "b@host", "a@host"):
        shard = claim_shard(job.pk, worker)
        record_batch(shard, 0, {"judged": len(shard.batches[0]), "unparsable": 0})
        end_shard(shard, JobShard.State.SUCCEEDED)
    finished = finish_job_if_done(job.pk)
    assert finished.state == Job.State.SUCCEEDED
    assert (finished.done, finished.total) == (4, 4)
    assert finished.message == "judged 4, unparsable 0, already judged 2"
    assert finish_job_if_done(job.pk) is None  # ended once


def test_the_job_ends_only_with_its_last_shard(job):
    plan_job(job, [[1], [2]])
    shard = claim_shard(job.pk, "a@host")
    record_batch(shard, 0, {})
    end_shard(shard, JobShard.State.SUCCEEDED)
    assert finish_job_if_done(job.pk) is None  # shard 1 is still pending
    assert Job.objects.get(pk=job.pk).state == Job.State.RUNNING


def test_tasks_for_a_leased_or_finished_job_do_nothing(job):
    assert job_to_run(job.pk) == job  # pending: its task runs
    plan_job(job, [[1]])
    shard = claim_shard(job.pk, "a@host")
    assert job_to_run(job.pk) is None  # delivered twice while the first runs
    record_batch(shard, 0, {})
    end_shard(shard, JobShard.State.SUCCEEDED)
    # The first worker died before ending the job: the next task's look ends it.
    assert job_to_run(job.pk) is None
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED
    assert job_to_run(job.pk) is None  # delivered after the end: unchanged
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED and job.attempts == 1


def test_items_stored_meanwhile_are_done_without_calling_the_batch(job, settings):
    settings.JOB_MAX_SHARDS = 1
    plan_job(job, [[1, 2], [3]])
    seen = []
    # Re-planned later: item 3 was stored by someone else, so the plan lacks it now.
    run_batches(job, [[1, 2]], lambda batch: seen.append(list(batch)) or {"judged": len(batch)})
    job.refresh_from_db()
    assert seen == [[1, 2]]
    assert (job.state, job.done, job.total, job.message) == ("succeeded", 3, 3, "judged 2")


def test_retry_runs_only_the_shards_that_did_not_succeed(
    job, settings, django_capture_on_commit_callbacks
):
    settings.JOB_MAX_SHARDS = 3
    calls = []
    server_down = [True]

    def flaky(batch):
        calls.append(list(batch))
        if batch == ["b"] and server_down[0]:
            raise ConnectionError("server went away")
        return {"judged": len(batch)}

    run_batches(job, [["a"], ["b"], ["c"]], flaky, retries=0)
    job.refresh_from_db()
    assert (job.state, job.done, job.message) == ("failed", 2, "1 of 3 batches failed; judged 2")
    with django_capture_on_commit_callbacks(execute=False):
        retry_job(job)
    assert list(job.shards.values_list("state", flat=True)) == ["succeeded", "pending", "succeeded"]
    calls.clear()
    server_down[0] = False
    run_batches(job, [["a"], ["b"], ["c"]], flaky, retries=0)
    job.refresh_from_db()
    assert calls == [["b"]]
    assert (job.state, job.done, job.attempts, job.message) == ("succeeded", 3, 2, "judged 3")


def test_cancel_ends_the_waiting_shards_and_the_running_one_at_its_next_batch(job, settings):
    settings.JOB_MAX_SHARDS = 2
    plan_job(job, [[1], [2], [3], [4]])
    other = claim_shard(job.pk, "b@host")  # shard 0, held by another worker
    cancel_job(job)
    assert claim_shard(job.pk, "a@host") is None  # shard 1 ends cancelled, unclaimed
    assert job.shards.get(index=1).state == JobShard.State.CANCELLED
    assert Job.objects.get(pk=job.pk).state == Job.State.RUNNING  # shard 0 still runs
    record_batch(other, 0, {"judged": 1})
    end_shard(other, JobShard.State.CANCELLED)  # what the worker does at its next batch
    ended = finish_job_if_done(job.pk)
    assert ended.state == Job.State.CANCELLED
    assert ended.message == "cancelled after 1 of 4 items (stored results kept); judged 1"


def test_a_job_run_in_process_inside_a_transaction_keeps_its_lease(job, settings):
    """A command's job run within an open transaction (here the test's): the shard's claim is
    uncommitted, so a heartbeat from another connection would not find it and stop the job."""
    import time

    settings.JOB_LEASE_HEARTBEAT_SECONDS = 0.02
    run_batches(job, [[1], [2]], lambda batch: time.sleep(0.15) or {"judged": 1})
    run_batches(Job.objects.create(kind="generate_answers"), [[3]], lambda b: {"judged": 1})
    job.refresh_from_db()
    assert (job.state, job.done, job.message) == ("succeeded", 2, "judged 2")


def test_a_batch_counts_its_items_and_tokens_in_one_go_and_the_last_ends_the_shard(job, settings):
    settings.JOB_MAX_SHARDS = 1
    plan_job(job, [[1, 2], [3]])
    Job.objects.filter(pk=job.pk).update(prompt_tokens=5)
    shard = claim_shard(job.pk, "a@host")
    judge = ModelUsage(calls=3, prompt_tokens=10, completion_tokens=2, forward_tokens=40)
    first = record_batch(shard, 0, {"judged": 2}, usage={"judge": judge}, end_if_done=True)
    assert first and first.wanted and shard.state == JobShard.State.RUNNING
    cancel_job(job)
    usage = {"judge": ModelUsage(1, 4, 1, 9), "embedder": ModelUsage(calls=2, forward_tokens=30)}
    last = record_batch(shard, 1, {"judged": 1}, usage=usage, end_if_done=True)
    assert last and not last.wanted  # counted all the same; the runner stops asking for more
    shard.refresh_from_db()
    assert (shard.state, shard.lease_token, shard.done) == (JobShard.State.SUCCEEDED, "", 3)
    job.refresh_from_db()
    assert (job.done, job.prompt_tokens, job.completion_tokens) == (3, 19, 3)
    per_role = {
        u.role: (u.calls, u.prompt_tokens, u.completion_tokens, u.forward_tokens)
        for u in job.model_usage.all()
    }
    assert per_role == {"embedder": (2, 0, 0, 30), "judge": (4, 14, 3, 49)}


def test_a_batch_costs_a_fixed_few_statements(settings):
    """Per batch: the bump and the count (a shard update and a job update, in a savepoint
    here) that also renews the lease and says whether to go on; nothing grows with the job's
    size or repeats the claim's reads."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.JOB_MAX_SHARDS = 1

    def statements(n_batches: int) -> int:
        job = Job.objects.create(kind="generate_answers")
        with CaptureQueriesContext(connection) as captured:
            run_batches(job, [[i] for i in range(n_batches)], lambda batch: {"judged": 1})
        job.refresh_from_db()
        assert (job.state, job.done) == ("succeeded", n_batches)
        return len(captured)

    assert (statements(12) - statements(2)) / 10 <= 4


def test_the_soft_time_limit_stops_a_batch_where_it_stands(job, settings):
    import time

    settings.JOB_TIME_LIMITS = {"generate_answers": _limits(0.3, 60)}
    run_batches(job, [[1], [2]], lambda batch: time.sleep(5), retries=3)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.message.startswith("soft time limit reached: a generate_answers job may run 0.3 s")
    [error] = job.errors  # no batch retry: the attempt's time is up
    assert error["time_limit"] == "soft" and "Retry resumes" in error["message"]
    assert set(job.shards.values_list("state", flat=True)) == {JobShard.State.FAILED}


def _limits(soft: float, hard: float):
    from crux_app.jobs.time_limits import TimeLimits

    return TimeLimits(soft, hard)
