"""`demo_campaign`: the demo's ready passage-rating campaign, overlap 2, created once."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Campaign
from annotation.queue.queue import next_item

pytestmark = pytest.mark.django_db


def create() -> str:
    out = io.StringIO()
    call_command("demo_campaign", stdout=out)
    return out.getvalue()


def test_the_demo_campaign_is_ready_for_both_demo_accounts():
    call_command("load_demo", stdout=io.StringIO())
    text = create()
    campaign = Campaign.objects.get()
    assert campaign.collection.name == "demo" and campaign.task_type == "passage_rating"
    assert campaign.overlap == 2 and campaign.is_open
    assert campaign.assignment_policy == Campaign.AssignmentPolicy.OVERLAP_FIRST
    assert sorted(campaign.invited.values_list("username", flat=True)) == [
        "annotator",
        "researcher",
    ]
    assert campaign.items.count() == 60
    assert "60 items, overlap 2" in text
    annotator = campaign.invited.get(username="annotator")
    assert next_item(campaign, annotator).assignment is not None  # ready to label
    assert "exists, left unchanged" in create()
    assert Campaign.objects.count() == 1


def test_without_the_demo_it_says_what_to_do():
    with pytest.raises(CommandError, match="run load_demo"):
        create()
