"""A researcher opens the LLM-retEval page, sees the chart and the failure browser, opens a
question, and creates a failure-category campaign with the button."""

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Campaign
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_researcher_browses_failures_and_creates_a_campaign(
    researcher, login, page_errors, screenshot, live_server
):
    data = make_reteval_collection()
    run_scenario(data)
    page = login("rita", "research-pass-1")
    page.goto(f"{live_server.url}/collections/{data.collection.pk}/")
    page.get_by_role("link", name="LLM-retEval", exact=True).click()

    expect(page).to_have_url(re.compile(rf"/collections/{data.collection.pk}/reteval/$"))
    expect(page.locator("#reteval-table tbody tr")).to_have_count(2)
    expect(page.locator("#reteval-plot .main-svg").first).to_be_visible()
    failures = page.locator("#reteval-failures tr.failure")
    expect(failures).to_have_count(3)
    expect(failures.nth(1)).to_contain_text("Nitrogen")
    expect(failures.nth(1).locator(".category")).to_have_text("C")
    shot = screenshot("reteval_page")
    assert shot.stat().st_size > 10_000

    failures.nth(1).get_by_role("link", name="q2").click()
    expect(page.locator("h1")).to_have_text("LLM-retEval · question q2")
    expect(page.locator("#result-bm25-2 .comparisons tbody tr")).to_have_count(2)
    page.go_back()

    page.locator("#reteval-counts form.campaign-form").nth(1).get_by_role(
        "button", name="Create failure-category campaign"
    ).click()
    campaign = Campaign.objects.get()
    expect(page).to_have_url(re.compile(rf"/campaigns/{campaign.pk}/$"))
    expect(page.locator(".messages")).to_contain_text("with 2 items")
    assert campaign.task_type == "failure_category"
    assert page_errors == []
