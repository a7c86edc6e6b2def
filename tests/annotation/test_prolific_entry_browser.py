"""A participant's Prolific link in real browsers: it logs in once; the same link opened in a
second browser is refused with a clear page, while the first browser keeps working."""

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from annotation.models import AnnotatorProfile
from annotation.task_types.names import PASSAGE_RATING
from tests.accessibility import assert_accessible
from tests.annotation.campaign_data import make_campaign
from tests.browser_fixtures import LAPTOP

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ITEM = "#item-slot .ws-item"
PID, STUDY, SESSION = "a" * 24, "b" * 24, "c" * 24


def test_a_replayed_link_is_refused_in_another_browser(
    live_server, page: Page, browser: Browser, page_errors
):
    campaign = make_campaign(
        PASSAGE_RATING,
        overlap=1,
        prolific_enabled=True,
        prolific_completion_code="CRUX2024",
        prolific_study_id=STUDY,
    )
    arrival = reverse("annotation-prolific", args=[campaign.slug])
    link = f"{live_server.url}{arrival}?PROLIFIC_PID={PID}&STUDY_ID={STUDY}&SESSION_ID={SESSION}"
    page.goto(link)
    expect(page.locator(ITEM)).to_be_visible()
    expect(page.locator("header .account")).to_contain_text(f"prolific-{PID}")

    other = browser.new_context(viewport=LAPTOP)
    try:
        stranger = other.new_page()
        response = stranger.goto(link)
        assert response is not None and response.status == 403
        expect(stranger.locator("p.error")).to_contain_text("already used to start the study")
        assert_accessible(stranger)  # the refusal page
        expect(stranger.locator("header .account")).to_have_text("Log in")  # not logged in
        # A different study's link on this campaign is refused too.
        wrong = link.replace(f"STUDY_ID={STUDY}", f"STUDY_ID={'d' * 24}")
        assert stranger.goto(wrong.replace(PID, "e" * 24)).status == 403
        expect(stranger.locator("p.error")).to_contain_text("not the study this campaign runs")
    finally:
        other.close()

    # The participant's own browser opens the link again and is back at work.
    page.goto(link)
    expect(page.locator(ITEM)).to_be_visible()
    assert AnnotatorProfile.objects.count() == 1
    assert page_errors == []


def test_the_confirmation_for_a_logged_in_browser_is_accessible(
    live_server, login, annotator, page_errors
):
    """Someone logged in who opens a participant's link is asked to confirm first; that page
    passes axe-core like every annotator page."""
    campaign = make_campaign(PASSAGE_RATING, overlap=1, prolific_enabled=True,
                             prolific_study_id=STUDY)  # fmt: skip
    page = login("anna", "annotate-pass-1")
    arrival = reverse("annotation-prolific", args=[campaign.slug])
    page.goto(
        f"{live_server.url}{arrival}?PROLIFIC_PID={PID}&STUDY_ID={STUDY}&SESSION_ID={SESSION}"
    )
    expect(page.get_by_role("button", name="Continue as participant")).to_be_visible()
    expect(page.locator("#prolific-confirm")).to_contain_text("anna")
    assert_accessible(page)
    assert page_errors == []
