"""The Python client's review methods against a live server: preview the queue, make a review
campaign for a reviewer, decide its items as that reviewer (blind), merge the decisions into one
adjudicated judge and read the verdict."""

import pytest
from crux_client import ApiError
from crux_client import Client as ApiClient
from django.contrib.auth import get_user_model

from api.tokens import issue_token
from crux_app.models import Judgment
from tests.annotation.review_data import disagreement_collection

pytestmark = pytest.mark.django_db(transaction=True)


def test_review_from_a_pipeline(client_api, live_server):
    api = client_api
    disagreement_collection("rv")
    queue = api.review_queue("rv", judges=["user:ann", "user:bob"])
    assert queue["n_items"] == 3
    assert queue["items"][0]["labels"] == {"user:ann": 2, "user:bob": 4}
    assert (
        api.review_queue("rv", kind="annotator_machine", judges=["user:bob", "gpt"])["n_items"] == 2
    )

    rev = get_user_model().objects.create_user("rev")
    made = api.create_review_campaign("rv", "Pipeline review", reviewers=["rev"], seed=1)
    slug = made["slug"]
    assert made["progress"]["total"] == 3
    assert [c["slug"] for c in api.review_campaigns("rv")] == [slug]
    with pytest.raises(ApiError) as refused:
        api.create_review_campaign("rv", "Bad", sample=0)
    assert refused.value.status == 400 and "sample" in refused.value.errors

    with ApiClient(live_server.url, issue_token(rev, "live")[1]) as reviewer:
        assert [c["slug"] for c in reviewer.review_campaigns()] == [slug]
        items = reviewer.review_items(slug, decided=False)
        assert len(items) == 3 and "labels" not in items[0]
        for item in items:
            # Option B, or another label where B is no option.
            letters = [o["option"] for o in item["options"]]
            decided = reviewer.decide(slug, item["id"], option="B" if "B" in letters else "")
            assert decided["stored"] is True
        again = reviewer.decide(slug, items[0]["id"], other="5", note="second thoughts")
        assert again["stored"] is False
        with pytest.raises(ApiError) as forbidden:
            reviewer.review_verdict(slug)
        assert forbidden.value.status == 403
    with pytest.raises(ApiError) as conflict:
        api.decide(slug, items[0]["id"], other="0")
    assert conflict.value.status == 409
    assert api.review_items(slug, decided=False) == []
    assert api.review_campaign(slug)["progress"]["percent"] == 100

    verdict = api.review_verdict(slug)
    assert verdict["n_decided"] == 3 and {j["judge"] for j in verdict["judges"]} == {
        "user:ann",
        "user:bob",
    }
    merged = api.merge_adjudicated("rv", "reference", campaigns=[slug])
    assert merged["judge"] == "adjudicated:merged:reference" and merged["n_labels"] == 3
    assert Judgment.objects.filter(judge__name=merged["judge"]).count() == 3
    with pytest.raises(ApiError) as missing:
        api.annotator_quality("no-such-campaign")
    assert missing.value.status == 404
