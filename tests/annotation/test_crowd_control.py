"""Crowd control in the queue: until-confident items (uncertain ones first, up to the cap,
confident ones closed), the qualification test before a campaign's items, and the skill floor
(stopped with the reason kept for the researcher)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.crowd.control import vote_confidence
from annotation.models import Campaign, CampaignItem, WorkerStop
from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit

from .campaign_data import make_annotator, make_campaign, report_collection

pytestmark = pytest.mark.django_db


def test_vote_confidence_by_hand():
    assert vote_confidence([2, 2, 4]) == pytest.approx(2 / 3)
    assert vote_confidence([1]) == 1.0
    assert vote_confidence([]) is None


def _label_all(campaign, user, rating_of) -> list[int]:
    """Label every item the queue hands ``user``; the item ids in the order given."""
    order = []
    while (nxt := queue.next_item(campaign, user)).assignment is not None:
        order.append(nxt.assignment.item_id)
        submit(nxt.assignment, {"rating": rating_of(nxt.assignment.item)}, 4000)
    return order


def test_until_confident_spends_labels_on_uncertain_items_only():
    people = [make_annotator(n) for n in ("ann", "bob", "cat", "dan")]
    campaign = make_campaign(PASSAGE_RATING, annotators=people, overlap=2, until_confident=True,
                             confidence_target=0.75, max_labels_per_item=4)  # fmt: skip
    items = list(campaign.items.filter(is_control=False).order_by("pk"))
    disputed = items[0].pk
    _label_all(campaign, people[0], lambda item: 2)
    _label_all(campaign, people[1], lambda item: 4 if item.pk == disputed else 2)
    assert CampaignItem.objects.get(pk=disputed).confidence == 0.5
    assert CampaignItem.objects.get(pk=items[1].pk).confidence == 1.0
    # The third annotator gets only the disputed item: the others are confident with 2 labels.
    assert _label_all(campaign, people[2], lambda item: 2) == [disputed]
    assert CampaignItem.objects.get(pk=disputed).confidence == pytest.approx(2 / 3)
    # Still under 0.75: a fourth label, then the cap is reached.
    assert _label_all(campaign, people[3], lambda item: 2) == [disputed]
    assert CampaignItem.objects.get(pk=disputed).annotations_done == 4
    others = CampaignItem.objects.filter(campaign=campaign, is_control=False).exclude(pk=disputed)
    assert set(others.values_list("annotations_done", flat=True)) == {2}


def test_fixed_overlap_is_unchanged_without_the_mode():
    people = [make_annotator(n) for n in ("ann", "bob", "cat")]
    campaign = make_campaign(PASSAGE_RATING, annotators=people, overlap=2)
    _label_all(campaign, people[0], lambda item: 2)
    _label_all(campaign, people[1], lambda item: 4)
    assert _label_all(campaign, people[2], lambda item: 2) == []
    assert not CampaignItem.objects.filter(campaign=campaign, confidence__isnull=False).exists()


def _with_gold(campaign, n: int) -> list[int]:
    gold = list(campaign.items.filter(is_control=False).order_by("pk")[:n])
    CampaignItem.objects.filter(pk__in=[g.pk for g in gold]).update(
        is_gold=True, gold_answer={"rating": 3}
    )
    return [g.pk for g in gold]


def test_the_qualification_test_comes_first_and_stops_who_fails(researcher_client):
    good, bad = make_annotator("good"), make_annotator("bad")
    campaign = make_campaign(PASSAGE_RATING, annotators=[good, bad], overlap=2,
                             qualification_items=2, qualification_min_accuracy=1.0,
                             gold_tolerance=0)  # fmt: skip
    gold = _with_gold(campaign, 2)
    first = queue.next_item(campaign, bad).assignment
    assert first.item_id in gold
    submit(first, {"rating": 0}, 3000)
    second = queue.next_item(campaign, bad).assignment
    assert second.item_id in gold and second.item_id != first.item_id
    submit(second, {"rating": 3}, 3000)
    result = queue.next_item(campaign, bad)
    assert (result.assignment, result.reason, result.finished) == (None, queue.STOPPED, True)
    stop = WorkerStop.objects.get(campaign=campaign, annotator=bad)
    assert stop.reason == WorkerStop.Reason.QUALIFICATION and "50% on 2 gold items" in stop.detail
    # The one who passes goes on to the campaign's items.
    order = _label_all(campaign, good, lambda item: 3)
    assert order[:2] == sorted(order[:2]) and set(order[:2]) == set(gold)
    assert len(order) > 2
    page = researcher_client.get(reverse("annotator-quality", args=[campaign.pk]))
    assert "Failed the qualification test" in page.text and "50% on 2 gold items" in page.text


def test_the_skill_floor_stops_a_dissenter_with_the_reason():
    ann, bob, cat = (make_annotator(n) for n in ("ann", "bob", "cat"))
    campaign = make_campaign(PASSAGE_RATING, annotators=[ann, bob, cat], overlap=3,
                             skill_floor=0.5, skill_floor_min_labels=3)  # fmt: skip
    _label_all(campaign, ann, lambda item: 2)
    _label_all(campaign, bob, lambda item: 2)
    order = _label_all(campaign, cat, lambda item: 5)
    # Wawa on everyone's labels: cat agrees with no majority; stopped after 3 labels.
    assert len(order) == 3
    assert queue.next_item(campaign, cat).reason == queue.STOPPED
    stop = WorkerStop.objects.get(annotator=cat)
    assert stop.reason == WorkerStop.Reason.SKILL_FLOOR and "under the floor 0.50" in stop.detail
    assert not WorkerStop.objects.filter(annotator__in=[ann, bob]).exists()


def test_the_campaign_form_takes_the_crowd_control_settings(researcher_client):
    collection = report_collection()
    form = {
        "name": "Confident", "collection": collection.pk, "task_type": PASSAGE_RATING,
        "selection_mode": "every", "seed": 0, "tau": 3, "overlap": 2,
        "reservation_seconds": 600, "gold_count": 0, "attention_count": 0,
        "control_interval": 5, "gold_min_accuracy": 0.7, "gold_tolerance": 1,
        "attention_min_pass_rate": 1.0, "qc_min_answers": 1, "qc_action": "warn",
        "until_confident": "on", "confidence_target": 0.8, "max_labels_per_item": 1,
        "qualification_items": 3, "qualification_min_accuracy": 0.9, "skill_floor": 0.6,
        "skill_floor_min_labels": 20,
    }  # fmt: skip
    refused = researcher_client.post(reverse("campaign-create"), form)
    assert refused.status_code == 400
    assert "the cap of labels per item is below" in refused.content.decode()
    researcher_client.post(reverse("campaign-create"), {**form, "max_labels_per_item": 5})
    campaign = Campaign.objects.get(name="Confident")
    assert (campaign.until_confident, campaign.confidence_target) == (True, 0.8)
    assert (campaign.max_labels_per_item, campaign.qualification_items) == (5, 3)
    assert (campaign.skill_floor, campaign.skill_floor_min_labels) == (0.6, 20)
