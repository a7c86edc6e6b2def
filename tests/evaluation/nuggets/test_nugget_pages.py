"""The nugget pages: scores, the stacked bars' figure and per-topic counts, the topic drill-down
to nuggets, passages and sentences, bounded GET parameters, researcher-only access, and the
leaderboard's column group."""

import json
import re

import pytest
from django.urls import reverse

from crux_app.models import Collection, Topic
from evaluation.leaderboard.columns import LeaderboardParams, column_keys
from evaluation.nuggets.leaderboard_columns import nugget_per_topic, nugget_values
from tests.evaluation.nuggets.test_nugget_commands import load_loss_topic
from tests.evaluation.nuggets.test_nugget_imports import NAME

pytestmark = pytest.mark.django_db


def figure(html: str) -> dict:
    found = re.search(
        r'<script id="nuggets-losses-figure" type="application/json">(.*?)</script>', html, re.S
    )
    return json.loads(found.group(1))


def test_collection_page_shows_scores_bars_and_topic_counts(researcher_client, tmp_path):
    load_loss_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)

    response = researcher_client.get(reverse("nuggets-collection", args=[collection.pk]))

    assert response.status_code == 200
    html = response.content.decode()
    spec = figure(html)
    assert spec["layout"]["barmode"] == "stack"
    assert [(t["name"], t["x"], t["y"]) for t in spec["data"]] == [
        ("retrieval miss", ["runA", "runB"], [1, 2]),
        ("generation drop", ["runA", "runB"], [1, 1]),
        ("unsupported", ["runA", "runB"], [1, 1]),
        ("delivered", ["runA", "runB"], [1, 0]),
    ]
    assert 'data-plotly-figure="nuggets-losses-figure"' in html
    assert "plotly-cartesian.min.js" in html and "cdn" not in html.lower()
    topic = Topic.objects.get(collection=collection, external_id="t1")
    assert reverse("nuggets-topic", args=[collection.pk, topic.pk]) in html
    assert "manage.py nuggets --collection" in html


def test_topic_page_drills_down_to_passages_and_sentences(researcher_client, tmp_path):
    load_loss_topic(tmp_path)
    topic = Topic.objects.get(external_id="t1")

    response = researcher_client.get(reverse("nuggets-topic", args=[topic.collection_id, topic.pk]))

    assert response.status_code == 200
    html = response.content.decode()
    row = html[html.index('id="nugget-runa-0"') :]
    row = row[: row.index("</tr>")]
    assert "delivered" in row and "d1" in row and "cited" in row
    assert "The moon&#x27;s gravity pulls on the oceans." in row  # the sentence citing d1
    drop = html[html.index('id="nugget-runa-2"') :]
    assert "generation drop" in drop[: drop.index("</tr>")]


def test_garbage_parameters_are_a_400_not_a_500(researcher_client, tmp_path):
    load_loss_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)
    url = reverse("nuggets-collection", args=[collection.pk])
    for query in ({"k": "0"}, {"k": "abc"}, {"tau": "9"}, {"judge": "nobody"}):
        assert researcher_client.get(url, query).status_code == 400
    assert researcher_client.get(url, {"k": "2", "tau": "5"}).status_code == 200


def test_an_empty_collection_says_how_to_import(researcher_client):
    collection = Collection.objects.create(name="empty")
    response = researcher_client.get(reverse("nuggets-collection", args=[collection.pk]))
    assert response.status_code == 200
    assert 'id="no-nuggets"' in response.content.decode()


def test_pages_are_for_researchers_only(client, tmp_path):
    load_loss_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)
    response = client.get(reverse("nuggets-collection", args=[collection.pk]))
    assert response.status_code in (302, 403)


def test_leaderboard_column_group(tmp_path):
    load_loss_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)
    assert {"nuggets_strict_vital", "nuggets_all"} <= set(column_keys())

    values = nugget_values(collection, LeaderboardParams(), ["runA", "runB", "other"]).values

    # runA: t1 has four vital nuggets (support, support, not, not); t2 one okay partial.
    assert values["nuggets_strict_vital"] == {"runA": 0.25, "runB": 0.0, "other": None}
    assert values["nuggets_all"]["runA"] == pytest.approx((0.5 + 0.5) / 2)
    per_topic = nugget_per_topic(collection, LeaderboardParams(), ["runA"])
    t1 = Topic.objects.get(external_id="t1").pk
    assert per_topic["nuggets_vital"][("runA", t1)] == 0.5


def test_the_start_form_starts_a_pending_job_and_rejects_bad_input(researcher_client, tmp_path):
    from crux_app.models import Job

    load_loss_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)
    url = reverse("nuggets-start", args=[collection.pk])
    assert researcher_client.get(url).status_code == 200
    bad = researcher_client.post(url, {"task": "assign", "grades": "4", "passages": "20",
                                       "window": "5"})  # fmt: skip
    assert bad.status_code == 400 and not Job.objects.exists()
    response = researcher_client.post(
        url, {"task": "assign", "grades": "2", "passages": "20", "window": "5"}
    )
    assert response.status_code == 302
    job = Job.objects.get()
    assert job.kind == "nuggets" and job.params["task"] == "assign" and job.params["grades"] == 2
    assert job.state == Job.State.PENDING


def test_the_topic_page_sums_up_the_losses_and_links_the_drill_down(researcher_client, tmp_path):
    from evaluation.nuggets.topic_summary import topic_summary

    load_loss_topic(tmp_path)
    topic = Topic.objects.get(external_id="t1")
    summary = topic_summary(topic)
    assert summary.judge == "amy"
    assert summary.rows == [("runA", [1, 1, 1, 1]), ("runB", [2, 1, 1, 0])]
    assert topic_summary(Topic.objects.create(collection=topic.collection, external_id="t9",
                                              request="r")).empty  # fmt: skip
    response = researcher_client.get(reverse("topic-detail", args=[topic.collection_id, topic.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-summary-table="nuggets"' in html
    assert reverse("nuggets-topic", args=[topic.collection_id, topic.pk]) in html
