"""The new review campaign page: judges chosen from the collection's list (several at once),
the agreement page's "Review these disagreements" link opening it pre-filled with that page's
selection, and a live item count made by the service that makes the campaign."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from annotation.models import ReviewCampaign
from tests.annotation.review_data import disagreement_collection

pytestmark = pytest.mark.django_db


@pytest.fixture
def data():
    return disagreement_collection()


def _options(html: str, select_id: str) -> list[tuple[str, bool]]:
    """(value, selected) of each option of the select ``select_id``."""
    select = re.search(rf'<select[^>]*id="{select_id}".*?</select>', html, re.S).group(0)
    return [
        (value, bool(selected))
        for value, selected in re.findall(r'<option value="([^"]*)"( selected)?', select)
    ]


def test_the_judges_are_a_multiple_choice_of_the_collections_judges(researcher_client, data):
    url = reverse("review-campaign-create")
    blank = researcher_client.get(url).content.decode()
    assert _options(blank, "id_judges") == []
    assert "Choose a collection to list its judges." in blank

    page = researcher_client.get(url, {"collection": data.collection.pk}).content.decode()
    assert re.search(r'<select name="judges"[^>]*multiple', page)
    assert _options(page, "id_judges") == [("gpt", False), ("user:ann", False), ("user:bob", False)]
    assert "(llm)" in page and "(human)" in page

    form = {
        "name": "Picked",
        "collection": data.collection.pk,
        "task_type": "passage_rating",
        "kind": "any",
        "judges": ["user:bob", "gpt"],
        "sampling": "all",
    }
    assert researcher_client.post(url, form).status_code == 302
    made = ReviewCampaign.objects.get(name="Picked")
    # bob vs gpt: p1 agrees (4, 4); p2 (5 vs 1) and p3 (0 vs 3) differ.
    assert made.selection["judges"] == ["user:bob", "gpt"]
    assert [i.key for i in made.items.order_by("position")] == ["t1/0/t1:0#2", "t1/0/t1:0#3"]


def test_the_live_count_is_what_creating_the_campaign_makes(researcher_client, data):
    count_url = reverse("review-campaign-count")
    choices = {
        "collection": data.collection.pk,
        "task_type": "passage_rating",
        "kind": "annotator_machine",
        "sampling": "largest_gap",
        "sample": "2",
        "seed": "3",
    }
    response = researcher_client.get(count_url, choices)
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r'id="review-preview-items">2</strong> items to review, of 3 disagree', html)
    assert "among gpt, user:ann, user:bob" in html

    created = researcher_client.post(
        reverse("review-campaign-create"), {**choices, "name": "Counted"}
    )
    assert created.status_code == 302
    assert ReviewCampaign.objects.get(name="Counted").items.count() == 2

    everyone = researcher_client.get(count_url, {**choices, "sampling": "all", "sample": ""})
    assert 'id="review-preview-items">3</strong>' in everyone.content.decode()
    nothing = researcher_client.get(count_url, {**choices, "judges": ["user:ann"]})
    assert nothing.status_code == 200
    assert "No items: no disagreements among user:ann" in nothing.content.decode()


def test_the_live_count_names_what_to_fix(researcher_client, data):
    count_url = reverse("review-campaign-count")
    prompt = researcher_client.get(count_url)
    assert prompt.status_code == 200
    assert "Choose a collection" in prompt.content.decode()
    bad = researcher_client.get(count_url, {"collection": data.collection.pk, "sample": "0"})
    assert bad.status_code == 400
    assert '<span class="mono">sample</span>' in bad.content.decode()
    ghost = researcher_client.get(count_url, {"collection": data.collection.pk, "judges": "ghost"})
    assert ghost.status_code == 400 and "ghost" in ghost.content.decode()
    for garbage in ("²", "9" * 5000, "x"):
        odd = researcher_client.get(count_url, {"collection": garbage})
        assert odd.status_code == 400 and "collection" in odd.content.decode()


def test_the_count_is_for_researchers_only(client, annotator, data):
    client.force_login(annotator)
    assert client.get(reverse("review-campaign-count")).status_code == 403


def test_review_these_disagreements_carries_the_agreement_pages_selection(researcher_client, data):
    page = researcher_client.get(
        reverse("agreement", args=[data.collection.pk]),
        {"judge": ["user:ann", "gpt"], "d-task": "passage_rating", "d-gap": "2"},
    )
    assert page.status_code == 200
    href = re.search(r'id="review-these" href="([^"]+)"', page.content.decode()).group(1)
    href = href.replace("&amp;", "&")
    query = parse_qs(urlsplit(href).query)
    assert query == {
        "collection": [str(data.collection.pk)],
        "judges": ["user:ann", "gpt"],
        "kind": ["annotator_machine"],
        "task_type": ["passage_rating"],
        "min_gap": ["2"],
    }

    form = researcher_client.get(href).content.decode()
    assert _options(form, "id_judges") == [("gpt", True), ("user:ann", True), ("user:bob", False)]
    assert ("annotator_machine", True) in _options(form, "id_kind")
    assert ("passage_rating", True) in _options(form, "id_task_type")
    assert re.search(r'name="min_gap" value="2"', form)
    assert (str(data.collection.pk), True) in _options(form, "id_collection")
    # ann vs gpt: p2 (1 vs 1) agrees; p1 (2 vs 4) differs by 2, p3 (3 vs 3) agrees.
    count = researcher_client.get(reverse("review-campaign-count"), query)
    assert 'id="review-preview-items">1</strong> item to review' in count.content.decode()
