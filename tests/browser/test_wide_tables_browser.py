"""Wide tables at laptop size (issue 34, part 4): the leaderboard and the annotator quality
table scroll sideways in their own box, the page is never wider than the window, and the
annotator quality table is headed in words (its CSV keeps the machine names)."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.browser_fixtures import LAPTOP
from tests.evaluation.crux.evaluate_collection import make_hand_collection
from tests.evaluation.leaderboard.test_leaderboard import copy_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A run name as long as real ones get (system, settings and date in one token).
LONG_RUN = "bm25-rm3-fb10-terms20-origweight0.5-msmarco-v2.1-segmented-2026-11-28" * 2

# The page's width, and the scroll box of the table ``selector``: its width, its content's.
WIDTHS = """(selector) => {
  const table = document.querySelector(selector);
  const box = table.closest('.table-scroll');
  return {
    page: document.documentElement.scrollWidth,
    box: box ? box.clientWidth : null,
    content: box ? box.scrollWidth : null,
    right: box ? box.getBoundingClientRect().right : null,
  };
}"""


def assert_scrolls_in_its_own_box(page: Page, selector: str, *, wide: bool = True) -> None:
    """The page fits the window; the table is in its scroll box, which scrolls when ``wide``."""
    widths = page.evaluate(WIDTHS, selector)
    assert widths["page"] <= LAPTOP["width"], f"the page is {widths['page']} px wide: {widths}"
    assert widths["box"] is not None, f"{selector} is not in a .table-scroll box"
    assert widths["right"] <= LAPTOP["width"], widths
    if not wide:
        return
    assert widths["content"] > widths["box"], f"{selector} is not wider than its box: {widths}"
    box = page.locator(selector).locator("xpath=ancestor::div[contains(@class,'table-scroll')]")
    box.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
    assert box.evaluate("(el) => el.scrollLeft") > 0  # the box itself scrolls
    assert page.evaluate("window.scrollX") == 0


def test_the_leaderboard_scrolls_in_its_own_box_at_1366(
    researcher, login, live_server, page_errors, settings, screenshot
):
    settings.TOKENIZER_MODEL = "whitespace"
    hand = make_hand_collection()
    copy_run(hand, "r1", LONG_RUN)
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("leaderboard", args=[hand.collection.pk]))
    expect(page.locator(f'#leaderboard-table tr[data-run="{LONG_RUN}"]')).to_be_visible()
    assert_scrolls_in_its_own_box(page, "#leaderboard-table")
    screenshot("leaderboard_1366")
    assert page_errors == []


def test_annotator_quality_is_headed_in_words_and_scrolls_in_its_own_box(
    researcher, login, live_server, page_errors, screenshot
):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna])
    for rating in (3, 1):
        submit(queue.next_item(campaign, anna).assignment, {"rating": rating}, 4000)
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("annotator-quality", args=[campaign.pk]))
    headers = page.locator("#quality-table thead th")
    expect(headers.first).to_contain_text("Annotator")
    texts = [t.strip() for t in headers.all_inner_texts()]
    raw = [t for t in texts if "_" in t]
    assert raw == [], f"raw column names in the headers: {raw}"
    for label in ("Median time", "Gold items", "Majority agreement", "Decided their way"):
        assert any(t.startswith(label) for t in texts), (label, texts)
    # Sorting still goes by the machine name.
    page.locator('#quality-table th a[data-sort="median_time_ms"]').click()
    expect(page).to_have_url(re.compile(r"sort=median_time_ms"))
    expect(page.locator("#quality-table tbody tr")).to_have_count(1)
    assert_scrolls_in_its_own_box(page, "#quality-table", wide=False)
    screenshot("annotator_quality_1366")
    assert page_errors == []
