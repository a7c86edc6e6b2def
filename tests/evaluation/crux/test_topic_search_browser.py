"""A researcher in a real browser picks a topic of a large collection on the judging page by
typing: the field's datalist fills with the server's matches and the item count follows."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.crux_app.test_list_pages import many_topics

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def configured_judge(settings):
    settings.JUDGE_MODEL, settings.GENERATOR_MODEL, settings.JUDGE_API_BASE = "org/judge", "", ""


def test_typing_a_topic_offers_matches_and_counts_its_items(
    researcher, login, live_server, page_errors
):
    collection = many_topics()
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("crux-start", args=[collection.pk]))
    count = page.locator("#judge-count")
    expect(count.locator("#judge-count-text")).to_be_attached()  # asked for once shown
    assert page.locator("select[name=topic]").count() == 0

    field = page.locator("input[name=topic]")
    field.press_sequentially("q11")
    options = page.locator("#id_topic-matches option")
    expect(options).to_have_count(10)
    assert options.first.get_attribute("value") == "q110"
    expect(count).to_contain_text("topic: No topic with this id")  # "q11" names no topic
    field.press_sequentially("7")
    expect(options).to_have_count(1)
    expect(count.locator("#judge-count-text")).to_be_attached()
    expect(count).not_to_contain_text("No topic with this id")
    # The refused partial id came back as a 400 (shown in the page); nothing else went wrong.
    assert [e for e in page_errors if "status of 400" not in e] == []
