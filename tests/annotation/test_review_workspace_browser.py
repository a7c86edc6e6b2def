"""The review workspace in a real browser: a reviewer (no researcher role) chooses an option
with a key, writes a note, decides with Enter, and the blind page names no judge."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import ReviewDecision
from annotation.review.access import add_reviewer
from annotation.review.campaigns import create_review_campaign
from annotation.review.selection import QueueChoice
from crux_app.models import Judgment
from tests.accessibility import assert_accessible
from tests.annotation.review_data import disagreement_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "rita-pass-2026"


def reviewer_campaign(show_sources: bool = False):
    data = disagreement_collection()
    campaign = create_review_campaign(
        data.collection, "Blind review", QueueChoice(), show_sources=show_sources
    )
    get_user_model().objects.create_user("rita", password=PASSWORD)
    add_reviewer(campaign, "rita")
    return campaign


def test_keyboard_choice_note_and_decide_in_a_blind_review(
    live_server, page, page_errors, login, screenshot
):
    campaign = reviewer_campaign()
    login("rita", PASSWORD)
    # A reviewer lands on the annotator home, which leads to the review campaigns.
    page.goto(live_server.url + reverse("annotation-home"))
    assert_accessible(page)
    page.click("#review-link a")
    assert_accessible(page)  # the reviewer's home
    page.click(f"a[href='{reverse('review-workspace', args=[campaign.slug])}']")
    expect(page.locator(".rv-option")).to_have_count(2)
    html = page.content()
    for name in ("user:ann", "user:bob", "gpt", "given by"):
        assert name not in html
    assert re.search(r"\b(ann|bob)\b", html) is None
    assert "blind review" in html
    screenshot("review-workspace-blind")
    assert_accessible(page)

    first = campaign.items.order_by("position").first()
    b_label = first.candidates[1]["label"]
    page.keyboard.press("b")
    expect(page.locator("input[name=option][value=B]")).to_be_checked()
    page.keyboard.press("n")
    expect(page.locator("textarea[name=note]")).to_be_focused()
    page.keyboard.type("the passage says so")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    expect(page.locator("#rv-progress")).to_have_text("1 / 3 decided")
    decision = ReviewDecision.objects.get(item=first)
    assert (decision.label, decision.option, decision.note) == (b_label, "B", "the passage says so")
    assert decision.reviewer.username == "rita" and decision.time_spent_ms is not None
    assert Judgment.objects.get(judge=campaign.judge, passage=first.passage).rating == b_label

    # Another label typed in, decided with Ctrl+Enter from the note.
    page.keyboard.press("o")
    page.keyboard.type("5")
    page.keyboard.press("Escape")
    page.keyboard.press("n")
    page.keyboard.type("neither")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#rv-progress")).to_have_text("2 / 3 decided")
    second = campaign.items.order_by("position")[1]
    assert ReviewDecision.objects.get(item=second).label == 5
    assert ReviewDecision.objects.get(item=second).option == ""
    assert page_errors == []


def test_a_refused_decision_keeps_the_note(live_server, page, login):
    campaign = reviewer_campaign()
    login("rita", PASSWORD)
    page.goto(live_server.url + reverse("review-workspace", args=[campaign.slug]))
    page.keyboard.press("n")
    page.keyboard.type("do not lose me")
    page.keyboard.press("Control+Enter")  # no option chosen
    expect(page.locator("#rv-error")).to_contain_text("choose one of the options")
    expect(page.locator("textarea[name=note]")).to_have_value("do not lose me")
    assert_accessible(page)  # with the refusal shown
    assert ReviewDecision.objects.count() == 0


def test_see_sources_names_the_judges(live_server, page, login):
    campaign = reviewer_campaign(show_sources=True)
    login("rita", PASSWORD)
    page.goto(live_server.url + reverse("review-workspace", args=[campaign.slug]))
    expect(page.locator(".rv-sources")).to_have_count(2)
    expect(page.locator(".rv-options")).to_contain_text("given by user:ann")
    assert_accessible(page)
