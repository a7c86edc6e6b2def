"""The SePer pages: a topic's scores, clusters and Delta chart; the start form; roles."""

import json
import re

import pytest
from django.urls import reverse

from crux_app.models import Job
from evaluation.seper.job import KIND, run_seper_job
from evaluation.seper.models import SeperScore
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = pytest.mark.django_db


def _page_url(data) -> str:
    return reverse("seper-topic", args=[data.collection.pk, data.topic.pk])


def _scored():
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    return data


def test_the_page_shows_scores_clusters_side_by_side_and_the_delta_chart(researcher_client):
    data = _scored()
    response = researcher_client.get(_page_url(data))
    assert response.status_code == 200
    html = response.content.decode()
    scores = html[html.index('id="seper-scores"') : html.index('id="seper-delta-chart"')]
    for label in ["No context", "Passage d1", "Passage d0", "bm25 top-2", "Gold passages"]:
        assert label in scores
    assert 'class="num negative">-0.500' in scores  # the noise passage's Delta-SePer_H

    chart = re.search(r'id="seper-delta-data" type="application/json">(.*?)</script>', html, re.S)
    figure = json.loads(chart.group(1))
    soft, hard = figure["data"]
    assert soft["x"] == hard["x"] == ["d1", "d0"]  # run order: noise first, then gold
    assert hard["y"] == pytest.approx([-0.5, 0.5])
    assert "plotly/plotly-cartesian.min.js" in html

    # The chart says which side of zero helps.
    assert "Above 0</b>: the passage made the right answer more likely" in html
    assert [a["text"] for a in figure["layout"]["annotations"]] == ["↑ helps", "↓ misleads"]

    baseline = html[html.index('id="clusters-baseline"') : html.index('id="clusters-run"')]
    with_run = html[html.index('id="clusters-run"') :]
    # Without context: a gold cluster and a wrong one, each half the mass.
    gold, wrong = '<tr class="cluster-head gold">', '<tr class="cluster-head not-gold">'
    assert baseline.count(gold) == 1 and baseline.count(wrong) == 1
    assert "Charles Dickens" in baseline and "0.500" in baseline
    # With the run's top-2 (the gold passage is in it): one gold cluster holding every sample.
    assert "bm25 top-2" in with_run and with_run.count(gold) == 1
    assert wrong not in with_run.split("</table>")[0]
    assert "Context: The novel is long" in with_run  # the prompt used
    # Each sampled response is listed once, under its cluster.
    for section, kind in [(baseline, "none"), (with_run.split("</table>")[0], "run")]:
        stored = SeperScore.objects.get(topic=data.topic, context_kind=kind, subquestion=None)
        listed = re.findall(r'<tr class="seper-response" data-response="(\d+)"', section)
        assert sorted(map(int, listed)) == list(range(len(stored.detail["responses"])))
        assert "Each sampled response" not in section  # no second listing


def test_a_topic_without_scores_says_so_and_links_the_start_form(researcher_client):
    data = seper_collection()
    html = researcher_client.get(_page_url(data)).content.decode()
    assert 'id="no-seper"' in html
    assert reverse("seper-start", args=[data.collection.pk]) in html


def test_annotators_get_403_and_anonymous_users_go_to_login(client, annotator):
    data = _scored()
    start = reverse("seper-start", args=[data.collection.pk])
    jobs = Job.objects.filter(kind=KIND).count()
    assert client.get(_page_url(data)).status_code == 302
    client.force_login(annotator)
    assert client.get(_page_url(data)).status_code == 403
    assert client.get(start).status_code == 403
    assert client.post(start, {"k": 5}).status_code == 403
    assert Job.objects.filter(kind=KIND).count() == jobs


def test_the_topic_page_links_seper_only_for_topics_with_gold_answers(researcher_client):
    data = seper_collection()
    url = reverse("topic-detail", args=[data.collection.pk, data.topic.pk])
    html = researcher_client.get(url).content.decode()
    assert _page_url(data) in html and 'data-link="seper-topic"' in html
    other = reverse("topic-detail", args=[data.collection.pk, data.no_gold.pk])
    assert 'data-link="seper-topic"' not in researcher_client.get(other).content.decode()


def test_the_start_form_starts_a_pending_seper_job(researcher_client, researcher):
    data = seper_collection()
    start = reverse("seper-start", args=[data.collection.pk])
    form = researcher_client.get(start).content.decode()
    assert 'name="k"' in form and 'value="5"' in form and 'name="n_samples"' in form
    response = researcher_client.post(
        start, {"run": data.run.pk, "k": 3, "n_samples": 6, "temperature": 0.7, "seed": 2}
    )
    job = Job.objects.get(kind=KIND)
    assert response.status_code == 302 and response.url == reverse("job-detail", args=[job.pk])
    assert job.collection == data.collection and job.created_by == researcher
    assert job.state == Job.State.PENDING
    params = {k: job.params[k] for k in ["run_id", "run", "k", "n_samples", "temperature", "seed"]}
    assert params == {"run_id": data.run.pk, "run": "bm25", "k": 3, "n_samples": 6,
                      "temperature": 0.7, "seed": 2}  # fmt: skip


def test_an_invalid_start_form_starts_nothing_and_names_the_field(researcher_client):
    data = seper_collection()
    start = reverse("seper-start", args=[data.collection.pk])
    response = researcher_client.post(start, {"k": 0, "n_samples": 10, "temperature": 0, "seed": 0})
    assert response.status_code == 400
    assert not Job.objects.filter(kind=KIND).exists()
    html = response.content.decode()
    assert "greater than or equal to 1" in html and "greater than or equal to 0.01" in html
