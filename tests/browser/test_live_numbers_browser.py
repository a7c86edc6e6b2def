"""What the user sees while numbers change (issue #37, part 4): while a judging job runs, the
leaderboard says how old its numbers are; once a batch is stored its banner offers a refresh,
which swaps the new numbers in without reloading the page; the banner does not ask while the tab
is hidden. A start page's cost estimate follows its form as it is typed."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from crux_app import data_version
from crux_app.jobs.estimate import job_estimate
from crux_app.models import Job, Judgment
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
from evaluation.dense.job import KIND
from tests.evaluation.crux.evaluate_collection import make_hand_collection
from tests.evaluation.dense.job_data import make_dense_data

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POLL_TIMEOUT_MS = 15_000  # the banner asks every 5 s while the data moves

HIDE = """() => {
  Object.defineProperty(document, "visibilityState", {value: "hidden", configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  Object.defineProperty(document, "visibilityState", {value: "visible", configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


def test_the_leaderboard_follows_a_running_job_and_refreshes_in_place(
    researcher, login, page_errors, live_server
):
    hand = make_hand_collection()
    job = Job.objects.create(
        kind="judge_answerability",
        collection=hand.collection,
        state=Job.State.RUNNING,
        done=420,
        total=770,
        params={"judge": "llm-judge"},
    )
    page = login("rita", "research-pass-1")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/freshness/" in r.url else None)
    page.goto(live_server.url + reverse("leaderboard", args=[hand.collection.pk]) + "?k=2")

    banner = page.locator("#data-as-of")
    expect(banner).to_contain_text("Numbers below as of")
    expect(banner).to_contain_text(f"#{job.pk} at 420 of 770 items")
    expect(page.locator("#refresh-numbers")).to_have_count(0)
    table = page.locator("#leaderboard-table")
    before = table.inner_text()
    page.evaluate("() => { window.notReloaded = true; }")

    # The job stores a batch: a bulk write, then the runner's bump of the data version.
    Judgment.objects.filter(judge=hand.llm, topic__external_id="ta").update(rating=5)
    data_version.bump(hand.collection.pk)
    Job.objects.filter(pk=job.pk).update(done=500)
    refresh = page.locator("#refresh-numbers")
    expect(refresh).to_be_visible(timeout=POLL_TIMEOUT_MS)
    expect(page.locator("#data-newer")).to_contain_text("The data changed since")
    expect(banner).to_contain_text(f"#{job.pk} at 500 of 770 items")
    refresh.click()
    expect(page.locator("#refresh-numbers")).to_have_count(0)  # the banner is the new page's
    expect(table).not_to_have_text(before)
    assert page.evaluate("() => window.notReloaded") is True  # swapped in, not reloaded
    assert page.url.endswith("?k=2")

    # A hidden tab is not asked; shown again, it asks at once.
    page.evaluate(HIDE)
    page.wait_for_timeout(500)
    asked.clear()
    page.wait_for_timeout(6_000)
    assert asked == []
    page.evaluate(SHOW)
    page.wait_for_timeout(1_000)
    assert len(asked) == 1
    assert page_errors == []


def test_the_dense_estimate_follows_the_k_typed(
    researcher, login, page_errors, live_server, settings
):
    """The estimate below the DENSE form is the server's for the values as typed, not the
    defaults'; a refused value says why instead of keeping the old figures."""
    settings.TOKENIZER_MODEL, settings.GENERATOR_API_BASE = str(minilm_dir()), ""
    registry.clear()
    data = make_dense_data()
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("dense-start", args=[data.collection.pk]))
    estimate = page.locator("#estimate-area #job-estimate")
    expect(estimate).to_be_visible()
    tokens = {}
    for k in (1, 3):
        page.fill("input[name=k]", str(k))
        server = job_estimate(KIND, {"run_id": data.run.pk, "k": k}, data.collection)
        expect(estimate).to_have_attribute("data-prompt-tokens", str(server.prompt_tokens))
        tokens[k] = server.prompt_tokens
    assert tokens[1] < tokens[3]
    page.fill("input[name=k]", "0")
    expect(page.locator("#estimate-refused")).to_contain_text("k:")
    expect(estimate).to_have_count(0)
    registry.clear()
    # The browser logs the refused values' 400 itself; nothing else may be logged.
    assert [e for e in page_errors if "400 (Bad Request)" not in e] == []
