"""A researcher in a real browser: the judging options page counts the items as the options
change; the started job's page gives its place on the queue, the page it fills and a cancel
button; a running job shows the time left and stops between batches when cancelled; the
leaderboard opens at a depth that has data and says how many topics each cell covers."""

from __future__ import annotations

import re
import threading
import time

import pytest
from django.db import connections
from django.urls import reverse
from playwright.sync_api import expect

from crux_app.jobs import service
from crux_app.jobs.runner import run_batches
from crux_app.models import Job
from evaluation.seper.job import run_seper_job
from tests.crux_app.factories import make_small_collection
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BATCHES = 80
BATCH_S = 0.2


@pytest.fixture
def sent_tasks(monkeypatch) -> list[int]:
    """Jobs whose task the pages sent: recorded here, never put on a broker."""
    sent: list[int] = []
    monkeypatch.setattr(service, "send_job_task", lambda job_id, kind, task_id: sent.append(job_id))
    return sent


@pytest.fixture(autouse=True)
def configured_judge(settings):
    settings.JUDGE_MODEL, settings.GENERATOR_MODEL, settings.JUDGE_API_BASE = "org/judge", "", ""
    settings.TOKENIZER_MODEL = "whitespace"


def _unexpected(errors: list[str]) -> list[str]:
    # Refused options come back as a 400 (shown in the page); the browser logs the status.
    return [e for e in errors if "status of 400" not in e]


def test_the_options_page_counts_items_and_the_job_page_queues_links_and_cancels(
    researcher, login, page_errors, screenshot, live_server, sent_tasks
):
    small = make_small_collection()
    ahead = Job.objects.create(kind="seper", collection=small.collection)  # gpu queue, pending
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("crux-start", args=[small.collection.pk]))

    count = page.locator("#judge-count")
    expect(count).to_contain_text("17 items to judge of the 20 in this scope")
    expect(count).to_contain_text("3 skipped: no text")
    page.select_option("select[name=scope]", "run")
    expect(count).to_contain_text("run: Choose the run whose top-k passages are judged.")
    page.select_option("select[name=run]", label="bm25")
    expect(count).to_contain_text("12 items to judge")  # bm25's top 4 x 3 sub-questions
    page.fill("input[name=k]", "2")
    expect(count).to_contain_text("6 items to judge of the 6 in this scope")
    page.fill("input[name=k]", "5000")
    expect(count).to_contain_text("k: Ensure this value is less than or equal to 1000.")
    page.fill("input[name=k]", "2")
    expect(count.locator("#judge-count-text")).to_have_attribute("data-to-judge", "6")
    screenshot("judge-options-count")

    page.get_by_role("button", name="Start judging job").click()
    job = Job.objects.exclude(pk=ahead.pk).get()
    expect(page).to_have_url(re.compile(rf"/jobs/{job.pk}/$"))
    assert sent_tasks == [job.pk] and job.params["k"] == 2
    queue = page.locator("#job-queue")
    expect(queue).to_contain_text("Not started: position 2 on the gpu queue")
    expect(queue).to_contain_text("1 pending job ahead, 0 running on the queue")
    results = page.locator("#job-results")
    expect(results).to_have_text("Leaderboard of the collection →")
    screenshot("job-pending")

    expect(page.locator("#job-workers")).to_contain_text("No worker is serving the gpu queue")
    page.get_by_role("link", name="Cancel job…").click()  # asks first, no script needed
    expect(page.locator("#cancel-confirm")).to_contain_text(
        "It has not started: it will not start."
    )
    page.get_by_role("button", name="Yes, cancel the job").click()
    expect(page.locator("#job-status .badge")).to_have_text("Cancelled")
    expect(page.locator("#job-message")).to_have_text("cancelled before a worker started it")
    expect(page.get_by_role("link", name="Cancel job…")).to_have_count(0)
    expect(page.get_by_role("button", name="Resume")).to_be_visible()
    expect(page.locator("#job-status")).not_to_have_attribute("hx-trigger", re.compile("."))
    job.refresh_from_db()
    assert (job.state, job.attempts) == (Job.State.CANCELLED, 0)

    page.locator("#job-results").click()
    expect(page).to_have_url(re.compile(rf"/collections/{small.collection.pk}/leaderboard/\?k=2$"))
    page.wait_for_load_state("load")  # plotly's bundle is large
    expect(page.locator("#leaderboard-table")).to_be_visible()
    assert _unexpected(page_errors) == []


def test_a_running_job_shows_the_time_left_and_stops_between_batches_when_cancelled(
    researcher, login, page_errors, screenshot, live_server
):
    small = make_small_collection()
    job = Job.objects.create(
        kind="judge_answerability", collection=small.collection, topic=small.topic
    )
    processed: list[int] = []

    def process(batch: list[int]) -> dict[str, int]:
        time.sleep(BATCH_S)
        processed.extend(batch)
        return {"judged": len(batch)}

    def work() -> None:  # the worker: the real runner, in a thread of this process
        try:
            run_batches(job, [[i] for i in range(BATCHES)], process)
        finally:
            connections.close_all()

    worker = threading.Thread(target=work)
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("job-detail", args=[job.pk]))
    expect(page.locator("#job-queue")).to_contain_text("position 1 on the gpu queue")
    worker.start()
    try:
        eta = page.locator("#job-eta")
        expect(eta).to_contain_text(re.compile(r"About .+ left at [\d.]+ items/s so far\."))
        screenshot("job-running")
        page.get_by_role("link", name="Cancel job…").click()
        page.get_by_role("button", name="Yes, cancel the job").click()
        expect(page.locator("#job-status .badge")).to_have_text("Cancelled", timeout=20_000)
    finally:
        worker.join(timeout=BATCHES * BATCH_S + 10)
    job.refresh_from_db()
    assert 0 < job.done == len(processed) < BATCHES
    expect(page.locator("#job-message")).to_have_text(
        f"cancelled after {job.done} of {BATCHES} items (stored results kept); judged {job.done}"
    )
    expect(page.locator("#job-eta")).to_have_count(0)
    expect(page.locator("#job-results")).to_have_attribute(
        "href", reverse("crux-topic", args=[small.collection.pk, small.topic.pk])
    )
    screenshot("job-cancelled")
    assert page_errors == []


def test_the_leaderboard_opens_at_a_depth_with_data_and_says_the_topics_per_cell(
    researcher, login, page_errors, screenshot, live_server
):
    data = seper_collection()  # two topics; SePer scores the one with gold answers, at k = 2
    run_seper_job(seper_job(data, k=2), CountingModels().models())
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("leaderboard", args=[data.collection.pk]))
    page.wait_for_load_state("load")

    expect(page.locator("#leaderboard-controls input[name=k]")).to_have_value("2")
    depths = page.locator("#k-values")
    expect(depths).to_contain_text("k = 2 (shown): ΔSePer@k 1 of 2 topics")
    row = page.locator('#leaderboard-table tr[data-run="bm25"]')
    expect(row.locator(".cell-note")).to_have_text(["1/2 topics"])
    screenshot("leaderboard-depths")

    page.fill("#leaderboard-controls input[name=k]", "10")
    page.locator("#leaderboard-controls input[name=k]").dispatch_event("change")
    expect(row.locator(".cell-note")).to_have_text(["k = 2"])
    expect(depths.get_by_role("link", name="k = 2")).to_be_visible()
    depths.get_by_role("link", name="k = 2").click()
    expect(page.locator("#leaderboard-controls input[name=k]")).to_have_value("2")
    expect(row.locator(".cell-note")).to_have_text(["1/2 topics"])
    assert page_errors == []
