"""The adjudicated reference is a judge like any other: the leaderboard, the evaluate command
and the agreement report read its judgments without a change."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.review.campaigns import create_review_campaign
from annotation.review.decisions import decide
from annotation.review.selection import QueueChoice
from crux_app.models import Judgment
from tests.annotation.review_data import disagreement_collection
from tests.crux_app.factories import make_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def decided(researcher, settings):
    settings.TOKENIZER_MODEL = "whitespace"
    data = disagreement_collection()
    make_run(data.collection, "bm25", data.topic, data.passages)
    campaign = create_review_campaign(data.collection, "Reference", QueueChoice())
    # The reviewer sides with bob on every disagreement (p1 4, p2 5, p3 0).
    for item in campaign.items.all():
        decide(item, researcher, item.labels["user:bob"])
    return data, campaign


def test_decisions_are_judgments_of_the_adjudicated_judge(decided):
    data, campaign = decided
    ratings = dict(
        Judgment.objects.filter(judge=campaign.judge).values_list("passage__external_id", "rating")
    )
    assert ratings == {"t1:0#1": 4, "t1:0#2": 5, "t1:0#3": 0}


def test_leaderboard_and_evaluate_read_the_adjudicated_judge(decided, researcher_client):
    data, campaign = decided
    out = io.StringIO()
    call_command("evaluate", "--collection", "rv", "--judge", campaign.judge.name, stdout=out)
    (record,) = json.loads(out.getvalue())
    # p0 was never disagreed on, so the reference has no judgment of it.
    assert record["run"] == "bm25" and record["missing_judgments"] == 1
    url = reverse("leaderboard", args=[data.collection.pk]) + f"?judge={campaign.judge.name}"
    response = researcher_client.get(url)
    assert response.status_code == 200
    assert response.context["board"].rows == [record]


def test_agreement_report_lists_the_adjudicated_judge(decided):
    _, campaign = decided
    out = io.StringIO()
    call_command(
        "agreement", "--collection", "rv", "--format", "json", "--resamples", "0", stdout=out
    )
    report = json.loads(out.getvalue())
    kinds = {j["name"]: j["kind"] for j in report["meta"]["judges"]}
    assert kinds[campaign.judge.name] == "adjudicated"
    task = next(t for t in report["meta"]["tasks"] if t["key"] == "passage_rating")
    assert task["labels"][campaign.judge.name] == 3


def test_crux_qrels_export_of_the_adjudicated_judge(decided, tmp_path):
    _, campaign = decided
    out = tmp_path / "adjudicated.jsonl"
    call_command(
        "export_labels", "--collection", "rv", "--judge", campaign.judge.name, "--format",
        "qrels", str(out), stdout=io.StringIO(),
    )  # fmt: skip
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    got = {line["document"]: line["relevances"]["0"] for line in lines}
    assert got == {"t1:0#1": 4, "t1:0#2": 5, "t1:0#3": 0}
