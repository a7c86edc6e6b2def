"""Annotation's researcher doors filter by workspace: a campaign, review campaign or
aggregation of another workspace's collection is 404 (never named in a list), a viewer reads and
may not change, and a campaign's annotator keeps their workspace page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign, ReviewCampaign
from annotation.review.campaigns import create_review_campaign
from annotation.review.selection import QueueChoice
from crux_app.models import Judgment, Workspace, WorkspaceMember
from tests.crux_app.factories import make_collection, make_passages, make_topic

from .campaign_data import make_annotator, make_campaign, report_collection
from .review_data import RATINGS, disagreement_collection

pytestmark = pytest.mark.django_db
VIEWER = WorkspaceMember.Role.VIEWER


def _review_collection(name: str, judges: dict):
    """A collection where the review data's judges disagree (the judges exist once)."""
    collection = make_collection(name)
    topic = make_topic(collection, "t1", n_subquestions=1)
    passages = make_passages(collection, "t1", 4)
    Judgment.objects.bulk_create(
        Judgment(
            judge=judges[n],
            topic=topic,
            subquestion=topic.subquestions.get(),
            passage=p,
            task=Judgment.Task.PASSAGE_RATING,
            rating=RATINGS[n][i],
        )
        for n in RATINGS
        for i, p in enumerate(passages)
    )
    return collection


def _member(name: str, workspace: Workspace, role: str = WorkspaceMember.Role.RESEARCHER):
    user = get_user_model().objects.create_user(name)
    WorkspaceMember.objects.create(workspace=workspace, user=user, role=role)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def spaces():
    """Workspaces A and B, each with a collection, a campaign and a review campaign; A's
    campaign has an invited annotator."""
    out = {}
    data = disagreement_collection("rv-a")
    for key in ("a", "b"):
        space = Workspace.objects.create(name=f"lab-{key}")
        reports = report_collection(f"reports-{key}")
        reviews = data.collection if key == "a" else _review_collection("rv-b", data.judges)
        for collection in (reports, reviews):
            collection.workspace = space
            collection.save(update_fields=["workspace"])
        annotators = [make_annotator("ann-a")] if key == "a" else []
        campaign = make_campaign(collection=reports, name=f"Campaign {key}", annotators=annotators)
        review = create_review_campaign(reviews, f"Review {key}", QueueChoice())
        out[key] = {"space": space, "campaign": campaign, "review": review, "reports": reports}
    return out


def _pages(c: Campaign, r: ReviewCampaign) -> list[str]:
    return [
        reverse("campaign-detail", args=[c.pk]),
        reverse("campaign-export", args=[c.pk, "csv"]),
        reverse("annotator-quality", args=[c.pk]),
        reverse("annotator-quality-csv", args=[c.pk]),
        reverse("campaign-payment", args=[c.pk]),
        reverse("review-campaign-detail", args=[r.pk]),
        reverse("review-workspace", args=[r.slug]),
        reverse("label-aggregation", args=[c.collection_id]),
        f"/api/v1/campaigns/{c.slug}/",
        f"/api/v1/campaigns/{c.slug}/labels/",
        f"/api/v1/campaigns/{c.slug}/annotator-quality/",
        f"/api/v1/review-campaigns/{r.slug}/",
        f"/api/v1/review-campaigns/{r.slug}/items/",
        f"/api/v1/collections/{c.collection.name}/aggregations/",
        f"/api/v1/collections/{r.collection.name}/review-campaigns/",
        f"/api/v1/collections/{r.collection.name}/review-queue/",
    ]


def test_a_member_reads_their_workspace_and_gets_404_for_the_other(spaces):
    a, b = spaces["a"], spaces["b"]
    researcher = _member("res-a", a["space"])
    for url in _pages(a["campaign"], a["review"]):
        assert researcher.get(url).status_code == 200, url
    for url in _pages(b["campaign"], b["review"]):
        assert researcher.get(url).status_code == 404, url


def test_lists_name_only_the_workspaces_campaigns(spaces):
    researcher = _member("res-a", spaces["a"]["space"])
    for url in (
        reverse("campaign-list"),
        reverse("review-campaign-list"),
        "/api/v1/campaigns/",
        "/api/v1/review-campaigns/",
    ):
        text = researcher.get(url).content.decode()
        assert "Campaign a" in text or "Review a" in text, url
        assert "Campaign b" not in text and "Review b" not in text, url
    form = researcher.get(reverse("campaign-create")).content.decode()
    assert "reports-a" in form and "reports-b" not in form


def test_a_viewer_reads_but_may_not_change(spaces):
    a = spaces["a"]
    campaign, review = a["campaign"], a["review"]
    viewer = _member("view-a", a["space"], VIEWER)
    for url in _pages(campaign, review):
        assert viewer.get(url).status_code == 200, url
    # The campaign page shows a viewer no controls it would be refused (its member sees them).
    detail = reverse("campaign-detail", args=[campaign.pk])
    controls = [reverse(name, args=[campaign.pk]) for name in ("campaign-state", "campaign-invite")]
    member_page = _member("res-a2", a["space"]).get(detail).content.decode()
    viewer_page = viewer.get(detail).content.decode()
    assert all(f'action="{url}"' in member_page for url in controls)
    assert not any(f'action="{url}"' in viewer_page for url in controls)
    refused = {
        reverse("campaign-state", args=[campaign.pk]): {"action": "pause"},
        reverse("campaign-prolific", args=[campaign.pk]): {"prolific_study_id": ""},
        reverse("campaign-invite", args=[campaign.pk]): {"username": "ann-a"},
        reverse("review-campaign-detail", args=[review.pk]): {"username": "view-a"},
        reverse("label-aggregation", args=[campaign.collection_id]): {"task": "passage_rating"},
    }
    for url, data in refused.items():
        assert viewer.post(url, data).status_code == 403, url
    campaign.refresh_from_db()
    assert campaign.state == Campaign.State.OPEN
    # Creating: the form offers no collection the viewer may only read; the API says 403.
    created = viewer.post(
        reverse("campaign-create"),
        {"name": "New", "collection": a["reports"].pk, "task_type": "passage_rating"},
    )
    assert created.status_code == 400 and not Campaign.objects.filter(name="New").exists()
    body = {"name": "New", "collection": "reports-a", "items": [{"topic": "duc-1",
            "position": 0, "passage": "duc-1:p0"}]}  # fmt: skip
    assert viewer.post("/api/v1/campaigns/", body, "application/json").status_code == 403


def test_another_workspaces_researcher_may_not_change_or_create(spaces):
    a = spaces["a"]
    outsider = _member("res-b", spaces["b"]["space"])
    state = outsider.post(reverse("campaign-state", args=[a["campaign"].pk]), {"action": "close"})
    assert state.status_code == 404
    created = outsider.post(
        reverse("campaign-create"),
        {"name": "Sneaky", "collection": a["reports"].pk, "task_type": "passage_rating"},
    )
    assert created.status_code == 400 and not Campaign.objects.filter(name="Sneaky").exists()
    body = {"name": "Sneaky", "collection": "reports-a", "items": []}
    response = outsider.post("/api/v1/campaigns/", body, "application/json")
    assert response.status_code in (400, 404) and not Campaign.objects.filter(name="Sneaky")


def test_the_annotator_of_a_campaign_keeps_its_workspace_page(spaces):
    annotator = Client()
    annotator.force_login(get_user_model().objects.get(username="ann-a"))
    slug = spaces["a"]["campaign"].slug
    assert annotator.get(reverse("annotation-workspace", args=[slug])).status_code == 200
    other = spaces["b"]["campaign"].slug
    assert annotator.get(reverse("annotation-workspace", args=[other])).status_code == 404


def test_a_staff_member_sees_in_the_admin_only_its_workspaces_campaign_rows(spaces):
    from crux_app.account_setup import _grant_admin_permissions

    user = get_user_model().objects.create_user("stef", is_staff=True)
    WorkspaceMember.objects.create(workspace=spaces["a"]["space"], user=user)
    _grant_admin_permissions(user)
    client = Client()
    client.force_login(user)
    for model in ("campaign", "reviewcampaign", "assignment", "reviewitem"):
        listing = client.get(reverse(f"admin:annotation_{model}_changelist"))
        assert listing.status_code == 200, model
        assert "Campaign b" not in listing.content.decode()
        assert "Review b" not in listing.content.decode()
    own = client.get(reverse("admin:annotation_campaign_change", args=[spaces["a"]["campaign"].pk]))
    assert own.status_code == 200 and "Campaign a" in own.content.decode()
    other = reverse("admin:annotation_campaign_change", args=[spaces["b"]["campaign"].pk])
    assert client.get(other, follow=True).redirect_chain  # "doesn't exist": to the index
    assert client.get(reverse("admin:annotation_annotatorprofile_changelist")).status_code == 403
