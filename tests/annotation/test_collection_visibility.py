"""One visibility rule: every page that lists collections lists the same ones."""

import re

import pytest
from django.urls import reverse

from annotation.task_types.names import REPORT_COVERAGE
from tests.crux_app.factories import make_collection

from .campaign_data import make_campaign, report_collection

pytestmark = pytest.mark.django_db


def names_in_links(html: str) -> set[str]:
    """Collection names the Collections page links to."""
    return set(re.findall(r'href="/collections/\d+/">([^<]+)</a>', html))


def names_in_dropdown(html: str) -> set[str]:
    """Collection names offered by the new-campaign form's collection field."""
    select = re.search(r'<select name="collection"[^>]*>(.*?)</select>', html, re.S)
    assert select, "the new-campaign form has no collection dropdown"
    return {n.strip() for n in re.findall(r'<option value="\d+"[^>]*>([^<]+)</option>', select[1])}


def test_collections_page_campaigns_and_dropdown_list_the_same_collections(researcher_client):
    reports = report_collection("with-reports")
    make_collection("empty-collection")  # no topics yet: still listed everywhere
    make_campaign(REPORT_COVERAGE, collection=reports, name="reports campaign")

    listed = names_in_links(researcher_client.get(reverse("collection-list")).content.decode())
    offered = names_in_dropdown(researcher_client.get(reverse("campaign-create")).content.decode())
    campaigns_page = researcher_client.get(reverse("campaign-list")).content.decode()

    assert listed == {"with-reports", "empty-collection"}
    assert offered == listed
    assert "with-reports" in campaigns_page
    assert "empty-collection" not in campaigns_page  # it has no campaign
