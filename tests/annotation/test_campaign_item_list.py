"""The campaign page's item list: paged, searchable by topic, passage or output id, and a
bounded form (a filter or page it does not know is a 400)."""

import re

import pytest
from django.urls import reverse

from annotation.task_types.names import PASSAGE_RATING

from .campaign_data import make_campaign, report_collection

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    """60 passage-rating items: 2 real sub-questions x 30 passages ``duc-1:0#0``..."""
    return make_campaign(PASSAGE_RATING, collection=report_collection(n_passages=30))


def item_rows(html: str) -> list[str]:
    table = re.search(r'<table class="compact" id="item-table">.*?</table>', html, re.S)
    return re.findall(r'<td class="small">(duc-1 #\d+ · [^<]+)</td>', table.group(0))


def test_items_are_paged(researcher_client, campaign):
    url = reverse("campaign-detail", args=[campaign.pk])
    first = researcher_client.get(url).content.decode()
    assert len(item_rows(first)) == 50 and "1–50 of 60 items" in first
    assert 'href="?page=2#items" rel="next"' in first
    second = researcher_client.get(url, {"page": 2}).content.decode()
    assert len(item_rows(second)) == 10
    small = researcher_client.get(url, {"items": "incomplete", "size": 25}).content.decode()
    assert len(item_rows(small)) == 25
    assert 'href="?items=incomplete&amp;size=25&amp;page=2#items"' in small


def test_items_are_searched_by_passage_id(researcher_client, campaign):
    url = reverse("campaign-detail", args=[campaign.pk])
    html = researcher_client.get(url, {"q": "duc-1:0#1"}).content.decode()
    rows = item_rows(html)
    # Passages #1 and #10-#19, each under both real sub-questions.
    assert len(rows) == 22 and all("duc-1:0#1" in r for r in rows)
    assert "matching “duc-1:0#1”" in html


@pytest.mark.parametrize(
    "query", [{"items": "bogus"}, {"page": "abc"}, {"page": "0"}, {"size": "9"}, {"q": "\x00"}]
)
def test_a_bad_item_list_parameter_is_a_400(researcher_client, campaign, query):
    response = researcher_client.get(reverse("campaign-detail", args=[campaign.pk]), query)
    assert response.status_code == 400 and next(iter(query)) in response.content.decode()
