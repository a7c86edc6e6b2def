"""Campaigns through the API: create from item keys, progress, every label in one call."""

import csv
import io
import json

import pytest

from annotation.models import Campaign
from annotation.queue import queue
from annotation.workspace.submission import submit
from tests.annotation.campaign_data import make_annotator
from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db

RATING = {"rating": 4, "rationale": "=cmd", "rationale_start": 0, "rationale_end": 4}


def _items(small, n=2):
    return [
        {"topic": "duc04-testb-3", "position": 0, "passage": p.external_id}
        for p in small.passages[:n]
    ]


def _streamed(response) -> bytes:
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def _create(api, small, **extra):
    body = {"name": "api campaign", "collection": "duc04", "items": _items(small), **extra}
    return api.post("/api/v1/campaigns/", body, content_type="application/json")


def test_create_from_item_keys_then_progress_and_labels(api):
    small = make_small_collection("duc04")
    anna, bert = make_annotator("anna"), make_annotator("bert")
    response = _create(api, small, overlap=2, annotators=["anna", "bert"])
    assert response.status_code == 201, response.content
    slug = response.json()["slug"]
    campaign = Campaign.objects.get(slug=slug)
    assert campaign.items.count() == 2
    for user in (anna, bert):
        submit(queue.next_item(campaign, user).assignment, RATING, 1000)

    progress = api.get(f"/api/v1/campaigns/{slug}/").json()
    assert {a["username"]: a["submitted"] for a in progress["annotators"]} == {"anna": 1, "bert": 1}
    labels = json.loads(_streamed(api.get(f"/api/v1/campaigns/{slug}/labels/")))
    assert labels["count"] == 2
    assert {row["annotator"] for row in labels["labels"]} == {"anna", "bert"}
    text = _streamed(api.get(f"/api/v1/campaigns/{slug}/labels/", {"format": "csv"})).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 2 and "'=cmd" in text


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"items": [{"topic": "duc04-testb-3", "position": 9, "passage": "x"}]}, "items[0]"),
        ({"items": []}, "items"),
        ({"overlap": 0}, "overlap"),
        ({"annotators": ["ghost"]}, "annotators"),
        ({"items": "nope"}, "items"),
    ],
)
def test_bad_campaign_fields_are_named(api, change, field):
    small = make_small_collection("duc04")
    response = _create(api, small, **change)
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert not Campaign.objects.exists()


def test_annotator_token_reads_and_submits_only_its_own_assignments(api, annotator_api, annotator):
    small = make_small_collection("duc04")
    bert = make_annotator("bert")
    slug = _create(api, small, overlap=2, annotators=[annotator.username, "bert"]).json()["slug"]
    campaign = Campaign.objects.get(slug=slug)
    theirs = queue.next_item(campaign, bert).assignment

    assert [c["slug"] for c in annotator_api.get("/api/v1/annotate/").json()] == [slug]
    mine = annotator_api.post(f"/api/v1/annotate/{slug}/next/").json()["assignment"]
    assert mine["payload"]["passage"]
    url = f"/api/v1/annotate/{slug}/assignments/{mine['id']}/submit/"
    bad = annotator_api.post(url, {"rating": 9}, content_type="application/json")
    assert bad.status_code == 400 and "answer" in bad.json()["errors"]
    done = annotator_api.post(
        url, {"rating": 2, "time_spent_ms": 1200}, content_type="application/json"
    )
    assert done.status_code == 201 and done.json()["answer"]["rating"] == 2
    assert (
        annotator_api.post(url, {"rating": 3}, content_type="application/json").status_code == 200
    )
    listed = annotator_api.get(f"/api/v1/annotate/{slug}/assignments/").json()
    assert [a["id"] for a in listed] == [mine["id"]]

    other = f"/api/v1/annotate/{slug}/assignments/{theirs.pk}/submit/"
    assert annotator_api.post(other, {"rating": 1}).status_code == 404
    assert annotator_api.get(f"/api/v1/campaigns/{slug}/labels/").status_code == 403
    hidden = Campaign.objects.create(name="x", slug="x", collection=small.collection)
    assert annotator_api.post(f"/api/v1/annotate/{hidden.slug}/next/").status_code == 404


def test_every_label_is_streamed_from_a_server_side_cursor(api, monkeypatch):
    """CSV and JSON answers are streamed: rows are written while the cursor is read, in
    chunks (checked with a chunk of 1 row), and hold what ``labels_frame`` holds."""
    from django.http import StreamingHttpResponse

    from annotation.exports.exports import labels_frame
    from api import streaming

    monkeypatch.setattr(streaming, "ROWS_PER_CHUNK", 1)
    small = make_small_collection("duc04")
    anna, bert = make_annotator("anna"), make_annotator("bert")
    slug = _create(api, small, overlap=2, annotators=["anna", "bert"]).json()["slug"]
    campaign = Campaign.objects.get(slug=slug)
    for user in (anna, bert, anna, bert):
        submit(queue.next_item(campaign, user).assignment, RATING, 1000)
    url = f"/api/v1/campaigns/{slug}/labels/"

    response = api.get(url, {"format": "csv"})
    assert isinstance(response, StreamingHttpResponse)
    chunks = list(response.streaming_content)
    assert len(chunks) == 5  # the header with the first row, one row each, the rest
    text = b"".join(chunks).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    frame = labels_frame(campaign)
    assert len(rows) == len(frame) == 4
    assert list(rows[0]) == list(frame.columns)
    assert [r["annotator"] for r in rows] == list(frame["annotator"])
    assert {r["rationale"] for r in rows} == {"'=cmd"}  # neutralised

    response = api.get(url)
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "application/json"
    body = json.loads(b"".join(response.streaming_content))
    assert body["campaign"] == slug and body["count"] == 4
    assert [r["annotator"] for r in body["labels"]] == list(frame["annotator"])
    assert body["labels"][0]["rating"] == 4 and body["labels"][0]["is_gold"] is False
    assert api.get("/api/v1/campaigns/nope/labels/").status_code == 404
