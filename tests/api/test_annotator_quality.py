"""A campaign's annotator quality table through the API: the page CSV's rows as JSON (and the
CSV itself with ``?format=csv``), before and after a review decides the disagreements."""

from __future__ import annotations

import csv
import io

import pytest

from annotation.models import AnnotatorProfile, CampaignItem
from annotation.quality.annotators import COLUMNS
from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit
from tests.annotation.campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db


def _label_everything(campaign, user, rating_of) -> None:
    while (nxt := queue.next_item(campaign, user)).assignment is not None:
        item = nxt.assignment.item
        submit(nxt.assignment, {"rating": 2 if item.is_control else rating_of(item)}, 5000)


@pytest.fixture
def labelled():
    """ann and bob rate every item 2; @cat agrees on the first item only (4 elsewhere)."""
    ann, bob, cat = make_annotator("ann"), make_annotator("bob"), make_annotator("@cat")
    campaign = make_campaign(PASSAGE_RATING, annotators=[ann, bob, cat], overlap=3)
    first = CampaignItem.objects.filter(campaign=campaign, is_control=False).order_by("pk")[0]
    _label_everything(campaign, ann, lambda item: 2)
    _label_everything(campaign, bob, lambda item: 2)
    _label_everything(campaign, cat, lambda item: 2 if item.pk == first.pk else 4)
    AnnotatorProfile.objects.filter(user=cat).update(source="prolific", prolific_pid="p" * 24)
    return campaign


def test_rows_of_the_csv_as_json_then_after_a_review(api, labelled):
    url = f"/api/v1/campaigns/{labelled.slug}/annotator-quality/"
    n_items = CampaignItem.objects.filter(campaign=labelled, is_control=False).count()
    body = api.get(url).json()
    assert body["campaign"] == labelled.slug and body["columns"] == list(COLUMNS)
    rows = {r["annotator"]: r for r in body["annotators"]}
    assert set(rows) == {"ann", "bob", "@cat"}
    assert list(rows["ann"]) == list(COLUMNS)
    assert (rows["@cat"]["majority_n"], rows["@cat"]["majority_agreement"]) == (
        n_items,
        pytest.approx(1 / n_items),
    )
    assert rows["@cat"]["prolific_id"] == "p" * 24
    assert rows["ann"]["reference_n"] == 0 and rows["ann"]["decided_their_way"] is None

    text = api.get(url, {"format": "csv"}).content.decode()
    table = {r["annotator"]: r for r in csv.DictReader(io.StringIO(text))}
    assert list(next(iter(table.values()))) == list(COLUMNS)
    assert table["'@cat"]["prolific_id"] == "p" * 24  # a formula-looking cell is neutralised

    # The people's disagreements reviewed through the API, each decided @cat's way.
    made = api.post(
        f"/api/v1/collections/{labelled.collection.name}/review-campaigns/",
        {"name": "Quality"},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    items = api.get(f"/api/v1/review-campaigns/{made.json()['slug']}/items/").json()["results"]
    assert len(items) == n_items - 1
    for item in items:
        letter = next(o["option"] for o in item["options"] if o["label"] == 4)
        decision = f"/api/v1/review-campaigns/{made.json()['slug']}/items/{item['id']}/decision/"
        response = api.post(decision, {"option": letter}, content_type="application/json")
        assert response.status_code == 201
    rows = {r["annotator"]: r for r in api.get(url).json()["annotators"]}
    assert rows["@cat"]["decided_their_way"] == 1.0 and rows["bob"]["decided_their_way"] == 0.0
    assert rows["@cat"]["reference_agreement"] == 1.0


def test_unknown_campaign_is_a_404(api):
    assert api.get("/api/v1/campaigns/nope/annotator-quality/").status_code == 404
