"""A reviewer cannot tell from ``collections/<name>/review-campaigns/`` whether a collection
exists (issue 34, section 5: 200 ``[]`` for an existing one, 404 otherwise): a collection where
the reviewer was given no campaign answers as one that does not exist."""

import json

import pytest
from django.contrib.auth import get_user_model

from api.tokens import issue_token
from crux_app.models import Collection
from tests.annotation.review_data import disagreement_collection

from .conftest import TokenClient

pytestmark = pytest.mark.django_db


def _reviewer(api, username: str, collection: str) -> TokenClient:
    user = get_user_model().objects.create_user(username)
    body = json.dumps({"name": f"for {username}", "reviewers": [username]})
    url = f"/api/v1/collections/{collection}/review-campaigns/"
    assert api.post(url, body, content_type="application/json").status_code == 201
    return TokenClient(issue_token(user, "tests")[1])


def test_a_reviewer_gets_the_same_404_for_a_collection_it_was_given_nothing_in(api):
    disagreement_collection("rv")
    reviewer = _reviewer(api, "rev", "rv")
    Collection.objects.create(name="secret")
    missing = reviewer.get("/api/v1/collections/no-such-thing/review-campaigns/")
    secret = reviewer.get("/api/v1/collections/secret/review-campaigns/")
    assert missing.status_code == 404
    assert (secret.status_code, secret.json()) == (404, missing.json())
    given = reviewer.get("/api/v1/collections/rv/review-campaigns/")
    assert [c["name"] for c in given.json()] == ["for rev"]
    # A researcher still tells an empty collection (200 []) from a missing one (404).
    assert api.get("/api/v1/collections/secret/review-campaigns/").json() == []
    assert api.get("/api/v1/collections/no-such-thing/review-campaigns/").status_code == 404
