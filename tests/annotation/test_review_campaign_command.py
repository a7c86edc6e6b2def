"""manage.py review_campaign: the campaign holds exactly the items review_queue prints with the
same choices; reviewers are given it; bad choices are clear errors, not tracebacks."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import ReviewCampaign
from annotation.review.access import REVIEWER
from crux_app.roles import has_role
from tests.annotation.campaign_data import make_annotator
from tests.annotation.review_data import disagreement_collection

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_the_campaign_holds_the_queue_and_is_given_to_its_reviewers():
    data = disagreement_collection()
    reviewer = make_annotator("rita")
    queue = json.loads(run("review_queue", "--collection", data.collection.name))
    printed = run(
        "review_campaign", "--collection", data.collection.name, "--name", "Disputed ratings",
        "--reviewer", "rita",
    )  # fmt: skip
    campaign = ReviewCampaign.objects.get(name="Disputed ratings")
    keys = list(campaign.items.order_by("position").values_list("key", flat=True))
    assert keys == [item["key"] for item in queue["items"]] and len(keys) == queue["n_items"] > 0
    assert printed.splitlines() == [
        f"review campaign {campaign.slug}: {len(keys)} item(s)",
        f"workspace: /review/{campaign.slug}/",
    ]
    assert campaign.show_sources is False  # blind unless asked
    assert list(campaign.reviewers.all()) == [reviewer] and has_role(reviewer, REVIEWER)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--reviewer", "nobody"], "no account is called 'nobody'"),
        (["--judges", "user:ann"], "no disagreements"),
        (["--sample", "0"], "--sample must be at least 1"),
        (["--name", " "], "--name must be 1 to 200 characters"),
    ],
)
def test_bad_choices_are_clear_errors_and_make_nothing(extra, message):
    data = disagreement_collection()
    args = ["review_campaign", "--collection", data.collection.name, "--name", "x", *extra]
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert not ReviewCampaign.objects.exists()


def test_a_taken_name_is_refused():
    data = disagreement_collection()
    run("review_campaign", "--collection", data.collection.name, "--name", "Once")
    with pytest.raises(CommandError, match="already called 'Once'"):
        run("review_campaign", "--collection", data.collection.name, "--name", "Once")
    assert ReviewCampaign.objects.count() == 1
