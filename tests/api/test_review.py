"""Review and adjudication through the API, on hand-made disagreements (two people and a
machine rating four passages): review campaigns made, listed and read; the queue preview as
``review_queue`` prints it; decisions through the workspace's service; the merged adjudicated
judge; the verdict as ``review_verdict`` prints it; who may call what."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import ReviewCampaign, ReviewDecision
from api.tokens import issue_token
from crux_app.models import Judgment
from crux_app.roles import REVIEWER, add_role
from tests.annotation.review_data import disagreement_collection

from .conftest import TokenClient

pytestmark = pytest.mark.django_db

CAMPAIGNS = "/api/v1/collections/rv/review-campaigns/"


def _post(client, url, body):
    return client.post(url, body, content_type="application/json")


def _account(username: str) -> TokenClient:
    """A reviewer's token (API tokens are for researchers and reviewers); which campaigns it
    reaches is what it is given."""
    user = get_user_model().objects.create_user(username)
    add_role(user, REVIEWER)
    return TokenClient(issue_token(user, "tests")[1])


def _command_json(*args: str) -> dict:
    out = StringIO()
    call_command(*args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def data():
    return disagreement_collection()


@pytest.fixture
def reviewer():
    """An account that will be given the campaign (``rev``)."""
    return _account("rev")


@pytest.fixture
def campaign(api, data, reviewer) -> ReviewCampaign:
    response = _post(api, CAMPAIGNS, {"name": "People disagree", "reviewers": ["rev"]})
    assert response.status_code == 201, response.content
    return ReviewCampaign.objects.get(slug=response.json()["slug"])


def _option_of(item: dict, label) -> str:
    return next(o["option"] for o in item["options"] if o["label"] == label)


def test_make_list_and_read_a_review_campaign(api, campaign):
    body = api.get(f"/api/v1/review-campaigns/{campaign.slug}/").json()
    assert body["collection"] == "rv" and body["task_type"] == "passage_rating"
    assert body["kind"] == "any" and body["sampling"] == "all" and body["show_sources"] is False
    assert body["progress"] == {"total": 3, "done": 0, "percent": 0}
    assert body["reviewers"] == ["rev"]
    assert body["selection"]["judges"] == ["user:ann", "user:bob"]
    assert body["adjudicated_judge"] == f"adjudicated:{campaign.slug}"
    assert body["workspace"] == f"/review/{campaign.slug}/"
    assert [c["slug"] for c in api.get(CAMPAIGNS).json()] == [campaign.slug]
    assert [c["slug"] for c in api.get("/api/v1/review-campaigns/").json()] == [campaign.slug]

    items = api.get(f"/api/v1/review-campaigns/{campaign.slug}/items/").json()
    assert items["count"] == 3
    first = items["results"][0]
    assert first["key"] == "t1/0/t1:0#1" and first["labels"] == {"user:ann": 2, "user:bob": 4}
    assert sorted(o["label"] for o in first["options"]) == [2, 4]
    assert {o["option"] for o in first["options"]} == {"A", "B"}
    assert first["payload"]["text"].startswith("Passage 1 of t1.")
    assert first["decided"] is False and first["decision"] is None


def test_choices_and_bounds_of_the_form(api, data, reviewer):
    body = {
        "name": "Machine vs people",
        "kind": "annotator_machine",
        "judges": ["user:ann", "gpt"],
        "sampling": "largest_gap",
        "sample": 1,
        "show_sources": True,
        "guidelines_md": "Read **all** of it.",
    }
    response = _post(api, CAMPAIGNS, body)
    assert response.status_code == 201, response.content
    made = response.json()
    # ann vs gpt disagree on passage 1 only (2 vs 4).
    assert made["progress"]["total"] == 1 and made["show_sources"] is True
    assert made["selection"]["judges"] == ["user:ann", "gpt"]
    assert made["reviewers"] == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 201}, "name"),
        ({"kind": "everyone"}, "kind"),
        ({"task_type": "nope"}, "task_type"),
        ({"sampling": "some"}, "sampling"),
        ({"sample": 0}, "sample"),
        ({"sample": "many"}, "sample"),
        ({"min_gap": -1}, "min_gap"),
        ({"seed": 2**31}, "seed"),
        ({"judges": ["ghost"]}, "judges"),
        ({"judges": [""]}, "judges"),
        ({"judges": [f"j{i}" for i in range(51)]}, "judges"),
        ({"judges": {"a": 1}}, "judges"),
        ({"reviewers": ["ghost"]}, "reviewers"),
        ({"judges": ["user:ann"]}, "__all__"),  # one judge: no disagreement
        ({"topics": ["elsewhere"]}, "__all__"),
    ],
)
def test_garbage_is_a_400_naming_the_field(api, data, change, field):
    response = _post(api, CAMPAIGNS, {"name": "Bad", **change})
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert not ReviewCampaign.objects.exists()


def test_a_taken_name_and_a_body_that_is_no_object_are_refused(api, campaign):
    response = _post(api, CAMPAIGNS, {"name": "People disagree"})
    assert response.status_code == 400 and "name" in response.json()["errors"]
    assert _post(api, CAMPAIGNS, ["name"]).status_code == 400
    response = api.post(CAMPAIGNS, "{not json", content_type="application/json")
    assert response.status_code == 400
    assert (
        _post(api, "/api/v1/collections/nowhere/review-campaigns/", {"name": "x"}).status_code
        == 404
    )


def test_the_queue_preview_is_the_commands_json(api, data):
    url = "/api/v1/collections/rv/review-queue/"
    expected = _command_json("review_queue", "--collection", "rv")
    assert expected["n_items"] == 3
    assert api.get(url).json() == expected
    expected = _command_json(
        "review_queue", "--collection", "rv", "--judges", "user:bob", "gpt",
        "--kind", "annotator_machine", "--sample", "1", "--sampling", "random", "--seed", "3",
    )  # fmt: skip
    query = "judges=user:bob&judges=gpt&kind=annotator_machine&sample=1&sampling=random&seed=3"
    assert api.get(f"{url}?{query}").json() == expected
    assert expected["n_items"] == 1
    for bad, field in [
        ("kind=everyone", "kind"),
        ("sample=0", "sample"),
        ("min_gap=wide", "min_gap"),
        ("judges=ghost", "judges"),
        ("task_type=nope", "task_type"),
    ]:
        response = api.get(f"{url}?{bad}")
        assert response.status_code == 400, bad
        assert field in response.json()["errors"]
    assert api.get("/api/v1/collections/nowhere/review-queue/").status_code == 404


def test_reviewer_decides_once_blind_and_idempotently(api, campaign, reviewer):
    items = reviewer.get(f"/api/v1/review-campaigns/{campaign.slug}/items/").json()["results"]
    first = items[0]
    # Blind: no judge names, labels or decisions of others.
    assert "labels" not in first and "decision" not in first
    assert all("judges" not in o for o in first["options"])
    detail = reviewer.get(f"/api/v1/review-campaigns/{campaign.slug}/").json()
    assert "selection" not in detail and "reviewers" not in detail
    assert [c["slug"] for c in reviewer.get("/api/v1/review-campaigns/").json()] == [campaign.slug]

    url = f"/api/v1/review-campaigns/{campaign.slug}/items/{first['id']}/decision/"
    decision = {"option": _option_of(first, 4), "note": "bob was right", "time_spent_ms": 900}
    response = _post(reviewer, url, decision)
    assert response.status_code == 201, response.content
    assert response.json()["stored"] is True
    assert response.json()["decision"]["label"] == 4
    assert response.json()["decision"]["reviewer"] == "rev"
    again = _post(reviewer, url, {**decision, "option": _option_of(first, 2)})
    assert again.status_code == 200 and again.json()["stored"] is False
    assert again.json()["decision"]["label"] == 4  # the first decision stands
    other = _post(api, url, {"other": "1"})  # the researcher, on an item decided by rev
    assert other.status_code == 409 and other.json()["decision"]["reviewer"] == "rev"
    assert ReviewDecision.objects.get().label == 4
    judgment = Judgment.objects.get(judge=campaign.judge)  # written as the adjudicated judge's
    assert (judgment.rating, judgment.rationale) == (4, "bob was right")

    decided = api.get(f"/api/v1/review-campaigns/{campaign.slug}/items/?decided=true").json()
    assert [i["decision"]["label"] for i in decided["results"]] == [4]
    left = reviewer.get(f"/api/v1/review-campaigns/{campaign.slug}/items/?decided=false").json()
    assert left["count"] == 2
    progress = api.get(f"/api/v1/review-campaigns/{campaign.slug}/").json()["progress"]
    assert progress == {"total": 3, "done": 1, "percent": 33}


def test_bad_decisions_are_400s(campaign, reviewer):
    item = campaign.items.order_by("position")[1]
    url = f"/api/v1/review-campaigns/{campaign.slug}/items/{item.pk}/decision/"
    for body, field in [
        ({}, "option"),
        ({"option": "Z"}, "option"),
        ({"other": "9"}, "other"),
        ({"option": "AB"}, "option"),
        ({"option": "A", "time_spent_ms": -1}, "time_spent_ms"),
        ({"option": "A", "note": "\x00"}, "note"),
        ({"option": ["A", {"x": 1}]}, "option"),
    ]:
        response = _post(reviewer, url, body)
        assert response.status_code == 400, (body, response.content)
        assert field in response.json()["errors"], body
    assert not ReviewDecision.objects.exists()
    items = f"/api/v1/review-campaigns/{campaign.slug}/items/"
    assert reviewer.get(f"{items}?decided=maybe").status_code == 400
    assert reviewer.get(f"{items}?page=last-but-one").status_code == 400
    campaign.state = ReviewCampaign.State.CLOSED
    campaign.save(update_fields=["state"])
    response = _post(reviewer, url, {"option": "A"})
    assert response.status_code == 400 and "closed" in response.json()["detail"]


def test_who_may_call_what(api, annotator_api, campaign, reviewer, client):
    slug = campaign.slug
    item = campaign.items.first()
    decision = f"/api/v1/review-campaigns/{slug}/items/{item.pk}/decision/"
    researcher_only = [
        ("get", "/api/v1/collections/rv/review-queue/"),
        ("post", CAMPAIGNS),
        ("post", "/api/v1/collections/rv/review-merges/"),
        ("get", f"/api/v1/review-campaigns/{slug}/verdict/"),
        ("get", "/api/v1/campaigns/any-campaign/annotator-quality/"),
    ]
    reviewer_may = [
        ("get", "/api/v1/review-campaigns/"),
        ("get", CAMPAIGNS),
        ("get", f"/api/v1/review-campaigns/{slug}/"),
        ("get", f"/api/v1/review-campaigns/{slug}/items/"),
        ("post", decision),
    ]
    for method, url in researcher_only + reviewer_may:
        # An annotator has neither role; no token is a 401.
        assert getattr(annotator_api, method)(url).status_code == 403, url
        assert getattr(client, method)(url).status_code == 401, url
    for method, url in researcher_only:
        assert getattr(reviewer, method)(url, content_type="application/json").status_code == 403

    # A reviewer of another campaign sees neither this one nor its items (404).
    stranger = _account("stranger")
    other = _post(api, CAMPAIGNS, {"name": "Another", "reviewers": ["stranger"]}).json()
    assert [c["slug"] for c in stranger.get(CAMPAIGNS).json()] == [other["slug"]]
    for method, url in reviewer_may[2:]:
        response = getattr(stranger, method)(url, {"option": "A"}, content_type="application/json")
        assert response.status_code == 404, url
    assert not ReviewDecision.objects.exists()


def test_merge_the_decisions_into_one_adjudicated_judge(api, campaign):
    items = api.get(f"/api/v1/review-campaigns/{campaign.slug}/items/").json()["results"]
    for item in items[:2]:
        url = f"/api/v1/review-campaigns/{campaign.slug}/items/{item['id']}/decision/"
        assert _post(api, url, {"other": "3"}).status_code == 201
    merges = "/api/v1/collections/rv/review-merges/"
    response = _post(api, merges, {"name": "Reference", "campaigns": [campaign.slug]})
    assert response.status_code == 200, response.content
    assert response.json() == {
        "judge": "adjudicated:merged:reference",
        "campaigns": [campaign.slug],
        "n_labels": 2,
        "n_conflicts": 0,
    }
    merged = Judgment.objects.filter(judge__name="adjudicated:merged:reference")
    assert sorted(merged.values_list("rating", flat=True)) == [3, 3]
    for body, field in [
        ({}, "name"),
        ({"name": "r", "task": "answer_equivalence"}, "task"),
        ({"name": "r", "campaigns": ["nope"]}, "__all__"),
        ({"name": "r", "task": "report_coverage"}, "__all__"),  # no such review campaign
    ]:
        response = _post(api, merges, body)
        assert response.status_code == 400, body
        assert field in response.json()["errors"], body


def test_the_verdict_is_the_commands_json(api, campaign):
    items = api.get(f"/api/v1/review-campaigns/{campaign.slug}/items/").json()["results"]
    for item in items:
        url = f"/api/v1/review-campaigns/{campaign.slug}/items/{item['id']}/decision/"
        # bob's label every time.
        label = item["labels"]["user:bob"]
        assert _post(api, url, {"option": _option_of(item, label)}).status_code == 201
    verdict = api.get(f"/api/v1/review-campaigns/{campaign.slug}/verdict/").json()
    assert verdict == _command_json("review_verdict", "--campaign", campaign.slug)
    by_judge = {j["judge"]: j for j in verdict["judges"]}
    assert by_judge["user:bob"]["decided_their_way"]["estimate"] == 1.0
    assert by_judge["user:ann"]["accuracy"]["estimate"] == 0.0
    assert by_judge["user:bob"]["accuracy"]["low"] < 1.0  # a Wilson interval, n = 3
    assert verdict["n_decided"] == 3
    assert api.get("/api/v1/review-campaigns/nope/verdict/").status_code == 404
