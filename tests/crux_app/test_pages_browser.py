"""A researcher walks from the login form to a topic page in a real browser."""

import re

import pytest
from playwright.sync_api import expect

from tests.crux_app.factories import make_small_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_researcher_logs_in_and_reaches_a_topic(
    researcher, login, page_errors, screenshot, live_server
):
    small = make_small_collection()
    page = login("rita", "research-pass-1")

    expect(page).to_have_url(re.compile(r"/collections/$"))
    expect(page.locator("h1")).to_have_text("Collections")
    page.get_by_role("link", name="duc04").click()

    expect(page).to_have_url(re.compile(rf"/collections/{small.collection.pk}/$"))
    expect(page.locator("#runs")).to_contain_text("bm25")
    page.get_by_role("link", name="duc04-testb-3").click()

    expect(page).to_have_url(re.compile(rf"/topics/{small.topic.pk}/$"))
    items = page.locator("ol.subquestions li")
    expect(items).to_have_count(4)
    expect(items.nth(0)).to_have_text("What is aspect 0 of duc04-testb-3?")
    expect(items.nth(2)).to_have_text("(no question at this position)")
    expect(items.nth(2)).to_have_css("font-style", "italic")

    report = page.locator("#reference-report")
    expect(report.get_by_text("heavy monsoon rain")).to_be_hidden()
    report.locator("summary").click()
    expect(report.get_by_text("heavy monsoon rain")).to_be_visible()

    shot = screenshot("topic_page")
    assert shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert page_errors == []
