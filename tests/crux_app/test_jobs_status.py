"""The job page's status: place on its queue, time left from the throughput so far, and the link
to the page the job fills (each kind names its page through the catalog)."""

from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.urls import reverse
from django.utils import timezone

from crux_app.jobs.catalog import CATALOG, results_link
from crux_app.jobs.runner import run_batches
from crux_app.jobs.service import retry_job
from crux_app.jobs.status import estimate, kinds_on_queue, queue_of, queue_place
from crux_app.models import Job, Judgment
from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db

GPU_KIND, OTHER_GPU_KIND, CPU_KIND = "generate_answers", "seper", "import"


def _job(kind: str = GPU_KIND, state: str = Job.State.PENDING, **fields) -> Job:
    return Job.objects.create(kind=kind, state=state, **fields)


def test_each_kind_is_on_the_queue_its_task_is_routed_to():
    assert queue_of(GPU_KIND) == queue_of(OTHER_GPU_KIND) == "gpu"
    assert queue_of(CPU_KIND) == queue_of("judge_embedding") == "cpu"
    assert queue_of("retired_kind") is None
    assert set(kinds_on_queue("gpu")) | set(kinds_on_queue("cpu")) == set(CATALOG)
    assert {GPU_KIND, OTHER_GPU_KIND, "judge_answerability"} <= set(kinds_on_queue("gpu"))


def test_a_pending_job_counts_the_pending_jobs_of_its_queue_created_before_it():
    _job(OTHER_GPU_KIND)  # ahead: same queue, pending, earlier
    _job(GPU_KIND, Job.State.RUNNING)  # running: not ahead, counted as running
    _job(CPU_KIND)  # another queue
    _job(GPU_KIND, Job.State.SUCCEEDED)
    _job(GPU_KIND, Job.State.CANCELLED)
    job = _job()
    _job(GPU_KIND)  # created after it

    place = queue_place(job)
    assert (place.queue, place.position, place.ahead, place.running) == ("gpu", 2, 1, 1)

    same_time = _job(created_at=job.created_at)
    Job.objects.filter(pk=same_time.pk).update(created_at=job.created_at)
    same_time.refresh_from_db()
    assert queue_place(same_time).position == 3  # a tie goes by id: after job, not the later one
    assert queue_place(_job(state=Job.State.RUNNING)) is None
    assert queue_place(_job("retired_kind")) is None


def test_the_time_left_follows_the_current_attempts_throughput():
    now = timezone.now()
    job = _job(state=Job.State.RUNNING, done=30, total=90, running_since=now - timedelta(minutes=1))
    left = estimate(job, now)
    assert left.items_per_s == pytest.approx(0.5)
    assert left.remaining_s == pytest.approx(120)
    assert left.rate_text == "30.0 items/min"

    fast = _job(
        state=Job.State.RUNNING, done=40, total=50, running_since=now - timedelta(seconds=4)
    )
    assert estimate(fast, now).rate_text == "10.0 items/s"
    assert estimate(fast, now).remaining_s == pytest.approx(1)

    before_first_batch = _job(state=Job.State.RUNNING, total=9, running_since=now)
    assert estimate(before_first_batch, now) is None
    assert estimate(_job(done=3, total=9, running_since=now), now) is None  # pending


def test_a_retry_counts_only_its_own_items_against_its_clock():
    now = timezone.now()
    # 60 of 90 items done by the first attempt; the retry did 6 more in its first minute.
    job = _job(
        state=Job.State.RUNNING, done=66, total=90, done_before_attempt=60,
        running_since=now - timedelta(minutes=1),
    )  # fmt: skip
    left = estimate(job, now)
    assert left.items_per_s == pytest.approx(0.1)
    assert left.remaining_s == pytest.approx(240)  # 24 left at 6 a minute (not 66 a minute)
    just_retried = _job(state=Job.State.RUNNING, done=60, total=90, done_before_attempt=60,
                        running_since=now - timedelta(seconds=30))  # fmt: skip
    assert estimate(just_retried, now) is None  # no batch of this attempt yet


def test_each_attempt_starts_counting_from_the_items_already_done(settings):
    settings.JOB_MAX_SHARDS = 2
    job = _job()
    fail_b = [True]

    def process(batch):
        if batch == ["b"] and fail_b[0]:
            raise ConnectionError("down")
        return {"judged": 1}

    run_batches(job, [["a"], ["b"]], process, retries=0)
    job.refresh_from_db()
    assert (job.state, job.done, job.done_before_attempt) == ("failed", 1, 0)
    retry_job(job)
    fail_b[0] = False
    run_batches(job, [["a"], ["b"]], process, retries=0)
    job.refresh_from_db()
    assert (job.state, job.done, job.total, job.done_before_attempt) == ("succeeded", 2, 2, 1)


def test_the_attempt_clock_restarts_with_each_attempt():
    job = _job()
    job.mark_running(total=4)
    first = job.running_since
    job.finish(Job.State.FAILED)
    job.mark_running(total=4)
    assert job.running_since > first and job.started_at == first


def test_each_method_kind_links_the_page_it_fills():
    data = make_small_collection()
    c, t = data.collection.pk, data.topic.pk
    expected = {
        "judge_answerability": reverse("crux-topic", args=[c, t]),
        "judge_embedding": reverse("crux-topic", args=[c, t]),
        "seper": reverse("seper-topic", args=[c, t]),
        "dense": reverse("dense-topic", args=[c, t]),
        "reteval": reverse("reteval-topic", args=[c, t]),
        "scaar": reverse("scaar-collection", args=[c]),
        "generate_answers": reverse("topic-detail", args=[c, t]),
        "import": reverse("collection-detail", args=[c]),
    }
    for kind, url in expected.items():
        link = results_link(_job(kind, collection=data.collection, topic=data.topic))
        assert link is not None and link.url == url, kind
        assert link.label
    assert results_link(_job("import")) is None  # no collection yet
    assert results_link(_job("retired_kind", collection=data.collection)) is None


def test_a_collection_judging_job_links_the_leaderboard_at_its_k_and_judge(researcher_client):
    data = make_small_collection()
    board = reverse("leaderboard", args=[data.collection.pk])
    job = _job("judge_answerability", collection=data.collection, params={"k": 5, "judge": "x"})
    link = results_link(job)
    assert link.url == f"{board}?k=5"  # judge "x" rated nothing here: the default judge
    assert link.label == "Leaderboard of the collection"

    rated = Judgment.objects.filter(topic__collection=data.collection, passage__isnull=False)
    judge = rated.first().judge.name
    job.params = {"k": 5000, "judge": judge}  # past the leaderboard's bound: no k
    assert results_link(job).url == f"{board}?{urlencode({'judge': judge})}"
    assert researcher_client.get(results_link(job).url).status_code == 200


def test_the_job_page_shows_queue_place_time_left_cancel_and_results(researcher_client):
    data = make_small_collection()
    _job(OTHER_GPU_KIND)
    pending = _job("judge_answerability", collection=data.collection, topic=data.topic)
    url = reverse("job-detail", args=[pending.pk])
    html = researcher_client.get(url).content.decode()
    assert 'Not started: <b>position 2</b> on the <b class="mono">gpu</b> queue' in html
    assert "(1 pending job ahead, 0 running on the queue)" in html
    assert f'href="{reverse("job-cancel", args=[pending.pk])}" id="job-cancel"' in html
    matrix = reverse("crux-topic", args=[data.collection.pk, data.topic.pk])
    assert f'<a id="job-results" href="{matrix}">Coverage matrix of the topic →</a>' in html
    assert 'hx-trigger="every 1s"' in html

    Job.objects.filter(pk=pending.pk).update(
        state=Job.State.RUNNING,
        done=10,
        total=40,
        running_since=timezone.now() - timedelta(seconds=200),
    )
    partial = researcher_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "position" not in partial and "10/40" in partial
    assert "About <b>10 min 0 s</b> left at 3.0 items/min so far." in partial
    assert 'id="job-cancel"' in partial

    Job.objects.filter(pk=pending.pk).update(done=0, running_since=timezone.now())
    partial = researcher_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "Time left: estimated once the first batch is done." in partial

    Job.objects.filter(pk=pending.pk).update(state=Job.State.CANCELLED, message="cancelled after")
    html = researcher_client.get(url).content.decode()
    assert '<span class="badge cancelled">Cancelled</span>' in html
    assert ">Resume</button>" in html and 'id="job-cancel"' not in html
    assert 'hx-trigger="every 1s"' not in html  # finished: no polling
    assert 'id="job-results"' in html  # the results stay linked
