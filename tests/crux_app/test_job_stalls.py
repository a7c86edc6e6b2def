"""A job whose worker died while no free worker serves its queue: its page and the Jobs list say
what is true (which worker held it and that its heartbeat stopped, that no free worker serves
the queue and which jobs hold them, where it stands in line), never "another worker resumes it";
the sweep queues one resume task for it, not one a grace period; a researcher moves a waiting job
up its queue ("run next") and the next task a worker of the queue takes runs it first."""

from datetime import timedelta

import pytest
import redis
from django.urls import reverse
from django.utils import timezone

from crux_app.jobs.heartbeat import record_heartbeat
from crux_app.jobs.line import JobNotWaiting, move_up, queue_line, take_moved_up
from crux_app.jobs.runner import job_to_run, run_moved_up_first
from crux_app.jobs.shards import claim_shard, end_shard, plan_job
from crux_app.jobs.stall import stall_report
from crux_app.jobs.status import job_status
from crux_app.jobs.sweep import resume_stalled_shards
from crux_app.models import Job, JobShard
from tests import worker_fixtures

pytestmark = pytest.mark.django_db

GPU_KIND = "generate_answers"


@pytest.fixture
def broker(settings):
    """This process sends to the test Redis database (emptied)."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    conf = worker_fixtures.celery_app.conf
    previous = (conf.get("broker_url"), conf.get("result_backend"))
    client = redis.Redis.from_url(worker_fixtures.BROKER_URL)
    client.flushdb()
    worker_fixtures._use_broker(worker_fixtures.BROKER_URL, None)
    yield client
    client.flushdb()
    worker_fixtures._use_broker(*previous)


def _queued(client: redis.Redis) -> int:
    return client.llen("gpu") + client.llen("cpu")


def _stall(shard: JobShard, settings, seconds: float = 1273) -> None:
    JobShard.objects.filter(pk=shard.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=seconds)
    )


def _age_resume(job: Job, settings) -> None:
    """As if the resume task was queued more than a grace period ago."""
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS * 3)
    JobShard.objects.filter(job=job, resume_sent_at__isnull=False).update(resume_sent_at=long_ago)


@pytest.fixture
def dead_and_busy(settings, researcher):
    """DENSE-like job X stalled on dead@host (no heartbeat any more); the only live gpu worker,
    busy@host (one slot), runs job Y; both the researcher's (they have no collection)."""
    record_heartbeat("busy@host", ["gpu"], 1)
    other = Job.objects.create(kind=GPU_KIND, total=4, created_by=researcher)
    plan_job(other, [[1], [2]])
    claim_shard(other.pk, "busy@host")
    stalled = Job.objects.create(kind=GPU_KIND, total=9, created_by=researcher)
    plan_job(stalled, [[1], [2]])
    shard = claim_shard(stalled.pk, "dead@host")
    _stall(shard, settings)
    return stalled, other


def test_the_page_names_the_dead_worker_the_busy_one_and_the_place_in_line(
    dead_and_busy, researcher_client
):
    stalled, other = dead_and_busy
    Job.objects.create(kind=GPU_KIND)  # pending: ahead of a resume not queued yet
    report = job_status(stalled).stall
    assert report.workers.free == 0 and [b.worker for b in report.busy] == ["busy@host"]
    assert report.busy[0].job_id == other.pk

    html = researcher_client.get(reverse("job-detail", args=[stalled.pk])).content.decode()
    assert "Shard 0 stalled: worker dead@host held it and its heartbeat stopped 127" in html
    assert "another worker resumes it" not in html
    assert "No free worker serves the gpu queue now: all 1 slot is busy" in html
    assert f'<span class="mono">busy@host</span> is busy with <a href="/jobs/{other.pk}/">' in html
    assert "A task to resume it is queued at the next sweep of a live worker." in html
    assert "Time left: unknown while the job waits to resume." in html

    listing = researcher_client.get(reverse("job-table")).content.decode()
    row = listing.split(f'id="job-{stalled.pk}"')[1].split("</tr>")[0]
    assert "stalled (dead@host stopped): no free gpu worker; position 2 on gpu" in row
    assert "estimated after the first batch" not in row


def test_the_sweep_queues_one_resume_for_a_stalled_job_not_one_a_minute(
    broker, dead_and_busy, settings, researcher_client
):
    stalled, other = dead_and_busy
    assert resume_stalled_shards() == 1
    for _ in range(3):  # minutes pass; the only worker is still busy
        _age_resume(stalled, settings)
        assert resume_stalled_shards() == 0
    assert _queued(broker) == 1

    report = stall_report(stalled, job_status(stalled).shards)
    assert report.resume_queued_at is not None and report.position == 1
    html = researcher_client.get(reverse("job-detail", args=[stalled.pk])).content.decode()
    assert "One task to resume it was queued at " in html
    assert "position 1 in the gpu queue&#x27;s line (0 jobs ahead)" in html

    # The busy worker ends its job: it takes its next task within seconds, no resend.
    for shard in JobShard.objects.filter(job=other, state=JobShard.State.RUNNING):
        end_shard(shard, JobShard.State.SUCCEEDED)
    assert resume_stalled_shards() == 0
    # It stayed free for a grace period, yet the task never came: it was lost, sent again.
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_LEASE_GRACE_SECONDS * 2)
    JobShard.objects.filter(job=other).update(finished_at=long_ago)
    assert resume_stalled_shards() == 1
    assert resume_stalled_shards() == 0  # and only once more
    assert _queued(broker) == 2

    # A worker takes the shard over: the mark goes with the claim.
    taken = claim_shard(stalled.pk, "busy@host")
    assert taken.stalled_worker == "dead@host" and taken.resume_sent_at is None


def test_a_second_stalled_shard_of_the_same_job_gets_no_second_resume(broker, settings):
    record_heartbeat("busy@host", ["gpu"], 1)
    job = Job.objects.create(kind=GPU_KIND)
    plan_job(job, [[1], [2], [3]])
    first = claim_shard(job.pk, "dead1@host")
    second = claim_shard(job.pk, "dead2@host")
    _stall(first, settings)
    assert resume_stalled_shards() == 1
    _stall(second, settings)
    assert resume_stalled_shards() == 0  # the queued task claims every stalled shard in turn
    assert _queued(broker) == 1


def test_run_next_moves_a_waiting_job_first_in_its_queues_line(
    researcher_client, researcher, annotator
):
    first, second, third = (
        Job.objects.create(kind=GPU_KIND, created_by=researcher) for _ in range(3)
    )
    assert [w.job_id for w in queue_line("gpu")] == [first.pk, second.pk, third.pk]
    html = researcher_client.get(reverse("job-detail", args=[third.pk])).content.decode()
    assert "<b>position 3</b>" in html and 'id="job-move-up"' in html

    response = researcher_client.post(reverse("job-move-up", args=[third.pk]))
    assert response.status_code == 302 and response["Location"] == f"/jobs/{third.pk}/"
    assert [w.job_id for w in queue_line("gpu")] == [third.pk, first.pk, second.pk]
    html = researcher_client.get(response["Location"]).content.decode()
    assert "<b>position 1</b>" in html and 'id="job-move-up"' not in html
    listing = researcher_client.get(reverse("job-table")).content.decode()
    assert "position 2 on" in listing.split(f'id="job-{first.pk}"')[1].split("</tr>")[0]

    move_up(second)  # the latest move goes first
    assert [w.job_id for w in queue_line("gpu")] == [second.pk, third.pk, first.pk]

    researcher_client.logout()
    researcher_client.force_login(annotator)
    assert researcher_client.post(reverse("job-move-up", args=[first.pk])).status_code == 403


def test_only_a_waiting_job_moves_up(researcher_client, dead_and_busy):
    stalled, running = dead_and_busy
    with pytest.raises(JobNotWaiting):
        move_up(running)  # its worker is alive
    response = researcher_client.post(reverse("job-move-up", args=[running.pk]), follow=True)
    assert "is not waiting for a worker" in response.content.decode()
    assert Job.objects.get(pk=running.pk).moved_up_at is None

    pending = Job.objects.create(kind=GPU_KIND)
    assert [w.job_id for w in queue_line("gpu")] == [pending.pk, stalled.pk]  # resume not sent
    move_up(stalled)  # a stalled job waits to resume: it may go first
    assert [w.job_id for w in queue_line("gpu")] == [stalled.pk, pending.pk]


def test_the_next_task_taken_runs_the_moved_up_job_first_and_once():
    waiting = Job.objects.create(kind="import")
    moved = Job.objects.create(kind="import")  # no upload: its import fails at once
    move_up(moved)
    assert take_moved_up("cpu", moved.pk) is None  # its own task: nothing else to run first

    assert run_moved_up_first(waiting)  # a task sent for ``waiting`` runs ``moved`` first
    moved.refresh_from_db()
    assert moved.state == Job.State.FAILED and moved.moved_up_at is None
    assert Job.objects.get(pk=waiting.pk).state == Job.State.PENDING
    assert not run_moved_up_first(waiting)  # taken once
    assert job_to_run(moved.pk) is None  # its own task, delivered later, finds it finished
