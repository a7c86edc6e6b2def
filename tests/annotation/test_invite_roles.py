"""The invite form invites researcher accounts without making them annotators (researchers may
annotate too; as annotators they would land on the annotator pages)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from crux_app.roles import ANNOTATOR, RESEARCHER, add_role, has_role

from .campaign_data import make_campaign

pytestmark = pytest.mark.django_db
User = get_user_model()


def invite(researcher_client, campaign, username: str):
    url = reverse("campaign-invite", args=[campaign.pk])
    return researcher_client.post(url, {"username": username})


def test_inviting_a_researcher_does_not_give_the_annotator_role(researcher_client):
    campaign = make_campaign()
    rob = User.objects.create_user("rob")
    add_role(rob, RESEARCHER)
    assert invite(researcher_client, campaign, "rob").status_code == 302
    assert campaign.invited.filter(pk=rob.pk).exists()
    assert not has_role(rob, ANNOTATOR) and has_role(rob, RESEARCHER)


def test_inviting_oneself_or_staff_does_not_give_the_annotator_role(researcher_client, researcher):
    campaign = make_campaign()
    sam = User.objects.create_user("sam", is_staff=True)
    invite(researcher_client, campaign, "sam")
    invite(researcher_client, campaign, researcher.username)
    assert set(campaign.invited.values_list("username", flat=True)) == {"sam", "rita"}
    assert not has_role(sam, ANNOTATOR) and not has_role(researcher, ANNOTATOR)


def test_an_existing_account_without_a_role_becomes_an_annotator(researcher_client):
    campaign = make_campaign()
    ann = User.objects.create_user("ann")
    invite(researcher_client, campaign, "ann")
    assert has_role(ann, ANNOTATOR) and campaign.invited.filter(pk=ann.pk).exists()
