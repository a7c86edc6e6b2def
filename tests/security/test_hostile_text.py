"""Text and numbers PostgreSQL or Python cannot take, sent to every door that stores a client's
text or parses its numbers (issue 34, section 5): a lone UTF-16 surrogate or a NUL in a JSON
string, unicode digits ``isdigit`` accepts and ``int`` refuses, more digits than ``int``
converts, and a JSON integer literal over Python's 4,300-digit limit. Each is a 400 naming the
field, never a 500, and nothing is stored."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, ReviewCampaign, ReviewDecision
from annotation.queue import queue
from api.tokens import issue_token
from crux_app.models import Job
from evaluation.nuggets.post_edit_task import KEY as POST_EDIT
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.annotation.review_data import disagreement_collection
from tests.evaluation.nuggets.test_nugget_post_edit_task import _collection as nugget_collection
from tests.evaluation.nuggets.test_nugget_post_editing import n, op

pytestmark = pytest.mark.django_db

SURROGATE = "\ud800"
NUL = "\x00"
BAD_TEXT = [SURROGATE, NUL, f"a{SURROGATE}b", f"a{NUL}b"]
BAD_OFFSETS = ["²", "³", "٣", "9" * 5000]
BIG_INT = "9" * 4301  # one digit past Python's int conversion limit


def _token_client(user) -> Client:
    """A researcher's API client (an annotator's API calls use the session: tokens are for
    researchers and reviewers)."""
    return Client(
        HTTP_AUTHORIZATION=f"Bearer {issue_token(user, 'tests')[1]}",
        raise_request_exception=False,
    )


def _session_client(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _json(client: Client, url: str, body: dict | str):
    text = body if isinstance(body, str) else json.dumps(body)
    return client.post(url, text, content_type="application/json")


def _refused(response, field: str | None = None) -> None:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    if field is not None and response["Content-Type"].startswith("application/json"):
        body = response.json()
        assert field in body.get("errors", {}) or field in body["detail"], body


# ---- (a) lone surrogates and NUL in JSON strings ------------------------------------------


@pytest.fixture
def rating(annotator):
    campaign = make_campaign(annotators=[annotator])
    assignment = queue.next_item(campaign, annotator).assignment
    return campaign, assignment


def _submit_url(campaign, assignment) -> str:
    return f"/api/v1/annotate/{campaign.slug}/assignments/{assignment.pk}/submit/"


@pytest.mark.parametrize("bad", BAD_TEXT)
def test_api_submit_refuses_unstorable_rationale(annotator, rating, bad):
    campaign, assignment = rating
    api = _session_client(annotator)
    _refused(_json(api, _submit_url(campaign, assignment), {"rating": 3, "rationale": bad}))
    # The same through a form post (NUL only: a form body cannot carry a lone surrogate).
    _refused(api.post(_submit_url(campaign, assignment), {"rating": "3", "rationale": NUL}))
    assert Assignment.objects.get(pk=assignment.pk).state == "reserved"


@pytest.fixture
def review(researcher):
    disagreement_collection()
    api = _token_client(researcher)
    response = _json(api, "/api/v1/collections/rv/review-campaigns/", {"name": "People"})
    assert response.status_code == 201, response.content
    return api, ReviewCampaign.objects.get(slug=response.json()["slug"])


@pytest.mark.parametrize("bad", BAD_TEXT)
def test_review_decision_note_campaign_and_merge_names_refuse_unstorable_text(review, bad):
    api, campaign = review
    item = campaign.items.order_by("position").first()
    url = f"/api/v1/review-campaigns/{campaign.slug}/items/{item.pk}/decision/"
    _refused(_json(api, url, {"option": "A", "note": bad}), "note")
    assert not ReviewDecision.objects.exists()
    campaigns = "/api/v1/collections/rv/review-campaigns/"
    _refused(_json(api, campaigns, {"name": bad}), "name")
    _refused(_json(api, campaigns, {"name": "ok", "judges": [bad]}), "judges")
    assert ReviewCampaign.objects.count() == 1
    merges = "/api/v1/collections/rv/review-merges/"
    _refused(_json(api, merges, {"name": bad, "campaigns": [campaign.slug]}), "name")


@pytest.fixture
def post_edit(tmp_path):
    anna = make_annotator("anna")
    campaign = make_campaign(POST_EDIT, collection=nugget_collection(tmp_path), annotators=[anna])
    assignment = queue.next_item(campaign, anna).assignment
    shown = [n(x["text"], x["importance"]) for x in assignment.item.payload["nuggets"]]
    return anna, campaign, assignment, shown


def _edits(shown: list, text: str) -> str:
    history = [op("edit", [0], [shown[0]], [n(text, shown[0]["importance"])], 10)]
    return json.dumps(
        {"nuggets": [n(text, shown[0]["importance"]), *shown[1:]], "history": history}
    )


@pytest.mark.parametrize("bad", [*BAD_TEXT, "big"])
def test_post_editing_history_refuses_unstorable_text_page_and_api(post_edit, bad):
    anna, campaign, assignment, shown = post_edit
    edits = _edits(shown, "x")
    if bad == "big":  # a JSON integer literal past int()'s limit
        edits = edits.replace('"at_ms": 10', f'"at_ms": {BIG_INT}')
    else:
        edits = _edits(shown, f"new {bad} text")
    page = _session_client(anna)
    url = reverse("annotation-submit", args=[campaign.slug, assignment.pk])
    response = page.post(url, {"edits": edits, "time_spent_ms": "100"})
    _refused(response)
    assert b"edits" in response.content or b"history" in response.content
    api = _session_client(anna)
    _refused(_json(api, _submit_url(campaign, assignment), {"edits": edits}))
    # The body itself a JSON document holding the bad value.
    _refused(_json(api, _submit_url(campaign, assignment), f'{{"edits": {edits}}}'))
    assert Assignment.objects.get(pk=assignment.pk).state == "reserved"


# ---- (b) isdigit() then int() ----------------------------------------------------------------


@pytest.mark.parametrize("bad", BAD_OFFSETS)
def test_rationale_offsets_must_be_ascii_numbers_page_and_api(annotator, rating, bad):
    campaign, assignment = rating
    page = _session_client(annotator)
    url = reverse("annotation-submit", args=[campaign.slug, assignment.pk])
    for name in ("rationale_start", "rationale_end"):
        fields = {"rating": "3", "rationale": "x", "rationale_start": "0", name: bad}
        response = page.post(url, fields)
        _refused(response)
        assert name.encode() in response.content
        response = _json(_session_client(annotator), _submit_url(campaign, assignment), fields)
        _refused(response, name)
    assert Assignment.objects.get(pk=assignment.pk).state == "reserved"


@pytest.mark.parametrize("bad", ["²", "9" * 5000])
def test_gold_csv_item_ids_must_be_ascii_numbers(researcher_client, bad):
    researcher_client.raise_request_exception = False
    campaign = make_campaign()
    text = f"item,answer\n{bad},5\n"
    response = researcher_client.post(
        reverse("campaign-gold", args=[campaign.pk]),
        {"file": SimpleUploadedFile("gold.csv", text.encode())},
    )
    assert response.status_code == 400
    assert "gold.csv, line 2, column item" in response.content.decode()


# ---- (d) a folder upload's relative paths ----------------------------------------------------


@pytest.mark.parametrize("bad", [SURROGATE, f"crux/{SURROGATE}.jsonl", f"[{BIG_INT}]"])
def test_a_folder_upload_refuses_unstorable_paths_page_and_api(researcher, settings, tmp_path, bad):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    paths = bad if bad.startswith("[") else json.dumps([bad])
    folder = [SimpleUploadedFile("x.jsonl", b"{}\n")]
    page = _session_client(researcher)
    form = {"format": "crux-labeling", "collection": "c1", "relative_paths": paths}
    response = page.post(reverse("upload"), {**form, "folder": folder})
    assert response.status_code == 400, response.status_code
    folder = [SimpleUploadedFile("x.jsonl", b"{}\n")]
    api = _token_client(researcher)
    response = api.post("/api/v1/collections/c1/imports/", {**form, "folder": folder})
    _refused(response, "folder")
    assert not Job.objects.exists()
