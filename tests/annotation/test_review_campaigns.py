"""Review campaigns: made from a queue, reviewed blind, decisions stored once and written as
the adjudicated judge's judgments; who may see what."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import ReviewCampaign, ReviewDecision
from annotation.queue import queue
from annotation.review.access import REVIEWER, add_reviewer
from annotation.review.campaigns import EmptyQueue, create_review_campaign
from annotation.review.decisions import DecisionError, chosen_label, decide, parse_label
from annotation.review.selection import QueueChoice
from annotation.task_types.names import ANSWER_EQUIVALENCE
from annotation.workspace.submission import submit
from crux_app.models import Judge, Judgment
from crux_app.roles import has_role
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.annotation.review_data import disagreement_collection

pytestmark = pytest.mark.django_db


@pytest.fixture
def data():
    return disagreement_collection()


@pytest.fixture
def campaign(data):
    return create_review_campaign(data.collection, "People disagree", QueueChoice())


def test_campaign_holds_the_human_disagreements_with_grouped_shuffled_candidates(campaign):
    items = list(campaign.items.order_by("position"))
    assert [i.key for i in items] == ["t1/0/t1:0#1", "t1/0/t1:0#2", "t1/0/t1:0#3"]
    first = items[0]
    assert first.labels == {"user:ann": 2, "user:bob": 4}
    assert sorted(c["label"] for c in first.candidates) == [2, 4]
    by_label = {c["label"]: c for c in first.candidates}
    assert by_label[2]["judges"] == ["user:ann"]
    assert by_label[2]["rationales"] == ["first span #1"]
    assert first.payload["text"].startswith("Passage 1 of t1.")
    assert first.inclusion == 1.0 and first.gap == 2.0
    judge = campaign.judge
    assert judge.kind == Judge.Kind.ADJUDICATED and judge.name == f"adjudicated:{campaign.slug}"
    assert campaign.selection["judges"] == ["user:ann", "user:bob"]
    assert campaign.show_sources is False  # blind by default


def test_an_empty_queue_makes_no_campaign(data):
    with pytest.raises(EmptyQueue):
        create_review_campaign(data.collection, "x", QueueChoice(judges=("user:ann",)))


def test_a_decision_is_stored_once_and_written_as_the_adjudicated_judgment(campaign, researcher):
    item = campaign.items.order_by("position").first()
    letter = "AB"[[c["label"] for c in item.candidates].index(4)]
    label, option = chosen_label(item, letter, "")
    assert (label, option) == (4, letter)
    first = decide(item, researcher, label, option, "bob was right", 1200)
    assert first.stored
    again = decide(item, researcher, 2, "", "second try")
    assert not again.stored and again.decision.pk == first.decision.pk
    decision = ReviewDecision.objects.get(item=item)
    assert (decision.label, decision.note, decision.time_spent_ms) == (4, "bob was right", 1200)
    assert decision.reviewer == researcher and decision.decided_at is not None
    judgment = Judgment.objects.get(judge=campaign.judge)
    assert (judgment.passage_id, judgment.rating, judgment.rationale) == (
        item.passage_id,
        4,
        "bob was right",
    )


def test_typed_labels_are_checked_against_the_task(campaign):
    item = campaign.items.first()
    assert parse_label("passage_rating", " 3 ") == 3
    assert parse_label("failure_category", "c") == "C"
    with pytest.raises(DecisionError, match="0-5"):
        parse_label("passage_rating", "9")
    with pytest.raises(DecisionError, match="not one of"):
        chosen_label(item, "Z", "")
    with pytest.raises(DecisionError, match="choose one"):
        chosen_label(item, "", "")


def _reviewer(username="rita"):
    return get_user_model().objects.create_user(username, password="pw-rita-123")


def test_reviewer_sees_the_workspace_but_no_researcher_page(client, campaign):
    rita = _reviewer()
    client.force_login(rita)
    workspace = reverse("review-workspace", args=[campaign.slug])
    assert client.get(workspace).status_code == 404  # not given this campaign yet
    add_reviewer(campaign, "rita")
    assert has_role(rita, REVIEWER)
    assert client.get(workspace).status_code == 200
    assert campaign.name in client.get(reverse("review-home")).text
    for name, args in [
        ("review-campaign-list", []),
        ("review-campaign-detail", [campaign.pk]),
        ("campaign-list", []),
    ]:
        assert client.get(reverse(name, args=args)).status_code == 403


def test_blind_page_names_no_judge_and_see_sources_does(client, researcher, data, campaign):
    client.force_login(researcher)
    html = client.get(reverse("review-workspace", args=[campaign.slug])).text
    assert "first span #1" in html and "second span #1" in html  # the rationales are shown
    for name in ("user:ann", "user:bob", "gpt", "given by"):
        assert name not in html
    assert re.search(r"\b(ann|bob)\b", html) is None
    shown = create_review_campaign(data.collection, "Open review", QueueChoice(), show_sources=True)
    html = client.get(reverse("review-workspace", args=[shown.slug])).text
    assert "given by user:ann" in html and "given by user:bob" in html


def test_posting_a_decision_stores_it_and_moves_on(client, researcher, campaign):
    client.force_login(researcher)
    item = campaign.items.order_by("position").first()
    url = reverse("review-decide", args=[campaign.slug, item.pk])
    response = client.post(url, {"option": "", "other": "", "note": "keep me"})
    assert response.status_code == 400
    assert "keep me" in response.text  # the note typed is not lost
    response = client.post(url, {"option": "", "other": "3", "note": "neither", "time_spent_ms": 5})
    assert response.status_code == 302
    assert ReviewDecision.objects.get(item=item).label == 3
    page = client.get(reverse("review-workspace", args=[campaign.slug]))
    assert page.context["item"].pk != item.pk
    assert client.post(url, {"option": "A", "note": "\x00"}).status_code == 400
    assert client.post(url, {"time_spent_ms": "-1", "option": "A"}).status_code == 400


def test_researcher_makes_a_campaign_in_the_browser_form(researcher_client, data):
    url = reverse("review-campaign-create")
    assert researcher_client.get(url).status_code == 200
    form = {
        "name": "From the form",
        "collection": data.collection.pk,
        "task_type": "passage_rating",
        "kind": "annotator_machine",
        "sampling": "largest_gap",
        "sample": "2",
        "seed": "3",
    }
    response = researcher_client.post(url, form)
    assert response.status_code == 302
    made = ReviewCampaign.objects.get(name="From the form")
    # Person vs machine: p1 (ann 2 vs gpt 4), p2 (bob 5 vs gpt 1), p3 (bob 0 vs gpt 3);
    # the two largest gaps are p2 (4) and p3 (3).
    assert [i.key for i in made.items.order_by("position")] == ["t1/0/t1:0#2", "t1/0/t1:0#3"]
    bad = researcher_client.post(url, {**form, "name": "other", "sample": "0"})
    assert bad.status_code == 400
    bad = researcher_client.post(url, {**form, "name": "other2", "judges": "ghost"})
    assert bad.status_code == 400 and "ghost" in bad.text


def test_answer_equivalence_disagreements_come_from_campaign_answers(researcher):
    ann, bob = make_annotator("ann"), make_annotator("bob")
    campaign = make_campaign(ANSWER_EQUIVALENCE, annotators=[ann, bob], overlap=2)
    for user, verdict in ((ann, True), (bob, False)):
        while (nxt := queue.next_item(campaign, user)).assignment is not None:
            submit(nxt.assignment, {"equivalent": verdict}, 4000)
    review = create_review_campaign(
        campaign.collection, "Equivalence", QueueChoice(task_type=ANSWER_EQUIVALENCE)
    )
    items = list(review.items.all())
    n_regular = campaign.items.filter(is_control=False, is_gold=False).count()
    assert len(items) == n_regular > 0
    first = items[0]
    assert first.labels == {"user:ann": 1, "user:bob": 0}
    assert first.key == f"{first.payload['topic']}/{first.payload['output_id']}"
    assert first.payload["gold_answers"]  # what the reviewer compares the answer with
    result = decide(first, researcher, 1, "", "same meaning")
    assert result.stored and not Judgment.objects.filter(judge=review.judge).exists()
