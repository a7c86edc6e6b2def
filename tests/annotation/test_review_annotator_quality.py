"""Annotator quality in one place: majority and reference agreement, decided-their-way, trend,
the sortable page and the CSV with Prolific ids (cells neutralised)."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.models import AnnotatorProfile, CampaignItem
from annotation.quality.agreement import majority, majority_hits, tally, trend
from annotation.quality.annotators import quality_rows
from annotation.queue import queue
from annotation.review.campaigns import create_review_campaign
from annotation.review.decisions import chosen_label, decide
from annotation.review.selection import QueueChoice
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit

from .campaign_data import make_annotator, make_campaign


def test_majority_is_none_on_a_tie():
    assert majority([1, 1, 2]) == 1
    assert majority([1, 2]) is None
    assert majority([]) is None


def test_majority_hits_leave_the_annotator_out():
    units = {
        "u1": {"a": 1, "b": 1, "c": 2},  # a: others b1 c2 tie -> out; c: others 1,1 -> 1
        "u2": {"a": 3, "b": 3},  # two annotators: agreement with the other one
    }
    hits = majority_hits(units)
    assert hits["a"] == [("u2", True)]
    assert hits["c"] == [("u1", False)]
    assert hits["b"] == [("u2", True)]  # u1: others a1 c2 tie


def test_tally_and_trend_by_hand():
    assert tally([True, False, True]).share == pytest.approx(2 / 3)
    assert tally([]).share is None
    # First half 1 of 2, second half 2 of 2: +0.5; the middle of 5 counts in neither.
    assert trend([True, False, True, True]) == 0.5
    assert trend([False, False, True, True, True]) == 1.0
    assert trend([True, True, True]) is None


def _label_everything(campaign, user, rating_of):
    while (nxt := queue.next_item(campaign, user)).assignment is not None:
        item = nxt.assignment.item
        rating = 2 if item.is_control else rating_of(item)
        submit(nxt.assignment, {"rating": rating}, 5000)


@pytest.fixture
def labelled(db):
    ann, bob, cat = make_annotator("ann"), make_annotator("bob"), make_annotator("@cat")
    campaign = make_campaign(PASSAGE_RATING, annotators=[ann, bob, cat], overlap=3)
    first = CampaignItem.objects.filter(campaign=campaign, is_control=False).order_by("pk")[0]
    _label_everything(campaign, ann, lambda item: 2)
    _label_everything(campaign, bob, lambda item: 2)
    _label_everything(campaign, cat, lambda item: 2 if item.pk == first.pk else 4)
    AnnotatorProfile.objects.filter(user=cat).update(
        source="prolific", prolific_pid="a" * 24 + ":" + "b" * 24
    )
    return campaign, ann, bob, cat


@pytest.mark.django_db
def test_rows_before_and_after_a_review_siding_with_the_minority(labelled, researcher):
    campaign, ann, bob, cat = labelled
    n_items = CampaignItem.objects.filter(campaign=campaign, is_control=False).count()
    rows = {r.base.username: r for r in quality_rows(campaign)}
    # cat: others ann 2 and bob 2 on every item; cat agrees on the first item only.
    assert (rows["@cat"].majority.hits, rows["@cat"].majority.n) == (1, n_items)
    # ann: others bob 2 and cat 4 tie on every item but the first.
    assert (rows["ann"].majority.hits, rows["ann"].majority.n) == (1, 1)
    assert rows["@cat"].prolific_id == "a" * 24
    assert rows["ann"].reference.n == 0

    review = create_review_campaign(campaign.collection, "Quality", QueueChoice())
    assert review.items.count() == n_items - 1
    for item in review.items.all():
        letter = "AB"[[c["label"] for c in item.candidates].index(4)]
        label, option = chosen_label(item, letter, "")
        decide(item, researcher, label, option)
    rows = {r.base.username: r for r in quality_rows(campaign)}
    assert (rows["@cat"].reference.hits, rows["@cat"].reference.n) == (n_items - 1, n_items - 1)
    assert rows["ann"].reference.share == 0.0
    assert rows["@cat"].decided_their_way.share == 1.0
    assert rows["bob"].decided_their_way.share == 0.0
    assert rows["bob"].decided_their_way.n == n_items - 1


@pytest.mark.django_db
def test_page_sorts_and_csv_has_prolific_ids_and_safe_cells(labelled, researcher_client):
    campaign, *_ = labelled
    detail = researcher_client.get(reverse("campaign-detail", args=[campaign.pk]))
    assert reverse("annotator-quality", args=[campaign.pk]) in detail.text
    url = reverse("annotator-quality", args=[campaign.pk])
    page = researcher_client.get(url, {"sort": "majority_agreement", "order": "desc"})
    assert page.status_code == 200
    assert [r["annotator"] for r in page.context["records"]] == ["ann", "bob", "@cat"]
    page = researcher_client.get(url, {"sort": "majority_agreement", "order": "asc"})
    assert page.context["records"][0]["annotator"] == "@cat"
    assert researcher_client.get(url, {"sort": "nope"}).status_code == 400
    assert researcher_client.get(url, {"order": "sideways"}).status_code == 400
    response = researcher_client.get(reverse("annotator-quality-csv", args=[campaign.pk]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    cat = next(r for r in rows if r["annotator"].endswith("@cat"))
    assert cat["annotator"] == "'@cat"  # a formula-looking cell is neutralised
    assert cat["prolific_id"] == "a" * 24
    assert {"median_time_ms", "speeding", "gold_accuracy", "decided_their_way"} <= set(rows[0])


@pytest.mark.django_db
def test_annotators_cannot_see_the_quality_page(labelled, client):
    campaign, ann, *_ = labelled
    client.force_login(ann)
    assert client.get(reverse("annotator-quality", args=[campaign.pk])).status_code == 403
