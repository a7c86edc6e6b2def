"""The new review campaign page in a real browser: choosing a collection lists its judges to
pick from, and the item count follows the choices as they change, until the campaign is made
with that many items."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import ReviewCampaign
from tests.annotation.review_data import disagreement_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_review_form_lists_judges_and_counts_items_live(
    live_server, login, researcher, page, page_errors
):
    data = disagreement_collection()
    login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("review-campaign-create"))
    preview = page.locator("#review-preview")
    expect(preview).to_contain_text("Choose a collection")
    expect(page.locator("#judges-none")).to_contain_text("Choose a collection")
    page.fill("#id_name", "Live count")

    page.select_option("#id_collection", label=data.collection.name)
    judges = page.locator("#id_judges option")
    expect(judges).to_have_count(3)  # the form came back with the collection's judges
    expect(page.locator("#id_name")).to_have_value("Live count")  # typed values kept
    # No judge chosen: the people, ann and bob, disagree on p1, p2 and p3.
    expect(page.locator("#review-preview-items")).to_have_text("3")

    page.select_option("#id_judges", ["user:bob", "gpt"])
    expect(page.locator("#review-preview-items")).to_have_text("2")
    expect(preview).to_contain_text("among gpt, user:bob")  # in the order of the select
    page.select_option("#id_sampling", "largest_gap")
    page.fill("#id_sample", "0")
    page.keyboard.press("Tab")
    expect(page.locator("#review-preview-errors")).to_contain_text("sample")
    page.fill("#id_sample", "1")
    page.keyboard.press("Tab")
    expect(page.locator("#review-preview-items")).to_have_text("1")

    page.get_by_role("button", name="Create review campaign").click()
    expect(page.locator("body")).to_contain_text("1 item(s) to review.")
    made = ReviewCampaign.objects.get(name="Live count")
    assert made.items.count() == 1 and made.selection["judges"] == ["gpt", "user:bob"]
    # The browser logs the count's deliberate 400 (sample 0); nothing else may go wrong.
    count_url = reverse("review-campaign-count")
    assert [e for e in page_errors if not ("status of 400" in e and count_url in e)] == []
