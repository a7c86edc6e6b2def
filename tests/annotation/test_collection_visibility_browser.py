"""One visibility rule, as a researcher sees it: the collections the Collections page lists are
the ones the new-campaign form offers, and the campaigns page names only those."""

import pytest
from playwright.sync_api import expect

from annotation.task_types.names import REPORT_COVERAGE
from tests.annotation.campaign_data import make_campaign, report_collection
from tests.crux_app.factories import make_collection

pytestmark = pytest.mark.browser


def test_the_new_campaign_form_offers_the_collections_the_collections_page_lists(
    researcher, login, page_errors, live_server
):
    reports = report_collection("with-reports")
    make_collection("empty-collection")  # no topics yet
    make_campaign(REPORT_COVERAGE, collection=reports, name="Reports campaign")
    page = login("rita", "research-pass-1")

    page.get_by_role("navigation").get_by_role("link", name="Collections").click()
    rows = page.locator("table.data tbody tr td:first-child a")
    expect(rows).to_have_count(2)
    listed = set(rows.all_inner_texts())

    page.get_by_role("navigation").get_by_role("link", name="Campaigns").click()
    campaigns = page.locator("main")
    expect(campaigns).to_contain_text("Reports campaign")
    expect(campaigns).to_contain_text("with-reports")
    page.get_by_role("link", name="New campaign").click()
    options = page.locator('select[name="collection"] option:not([value=""])')
    offered = {text.strip() for text in options.all_inner_texts()}

    assert listed == {"with-reports", "empty-collection"}
    assert offered == listed
    assert page_errors == []
