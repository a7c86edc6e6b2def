"""The "Judge vs people" page: researchers only, bounded selectors (garbage is a 400), the same
numbers as the command, downloads, and its link on the collection page."""

import json

import pytest
from django.urls import reverse

from crux_app.models import Collection
from evaluation.judge_report.method import ppi as ppi_method
from tests.crux_app.factories import make_collection
from tests.evaluation.judge_report.two_judges import make_two_judges

pytestmark = pytest.mark.django_db


def url(collection: Collection) -> str:
    return reverse("judge-report", args=[collection.pk])


def test_researchers_only(client, annotator):
    two = make_two_judges()
    response = client.get(url(two.collection))
    assert response.status_code == 302 and "login" in response["Location"]
    client.force_login(annotator)
    assert client.get(url(two.collection)).status_code == 403


def test_a_bare_url_compares_the_llm_judge_with_the_person(researcher_client):
    two = make_two_judges()
    response = researcher_client.get(url(two.collection), {"k": "3", "resamples": "50"})
    assert response.status_code == 200
    data = response.context["data"]
    assert data["meta"]["judges"]["a"]["name"] == "llm-judge"
    assert data["meta"]["judges"]["b"]["name"] == "people"
    body = response.content.decode()
    assert (
        'id="judge-report-headline"' in body and 'data-plotly-figure="judge-scatter-data"' in body
    )
    assert f"{data['run_ranking']['kendall_tau']:.3f}" in body
    assert "js/plots.js" in body
    for run in ("best", "mid", "worst", "xtra"):
        assert run in body


def test_the_json_download_is_the_commands_report(researcher_client):
    two = make_two_judges()
    params = {"judge_a": "llm-judge", "judge_b": "people", "k": "3", "resamples": "100"}
    response = researcher_client.get(url(two.collection), {**params, "format": "json"})
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["run_ranking"]["n_runs"] == 4 and data["meta"]["bootstrap"]["resamples"] == 100
    html = researcher_client.get(url(two.collection), {**params, "format": "html"})
    assert html.status_code == 200 and b"Plotly.newPlot" in html.content


@pytest.mark.parametrize(
    "query",
    [
        {"k": "ten"},
        {"k": "0"},
        {"k": "1000001"},
        {"k": "1e9"},
        {"resamples": "99999999"},
        {"metric": "bleu"},
        {"judge_a": "nobody"},
        {"judge_a": "people", "judge_b": "people"},
        {"judge_a": "x\x00y"},
        {"format": "pdf"},
    ],
)
def test_garbage_is_a_400(researcher_client, query):
    two = make_two_judges()
    response = researcher_client.get(url(two.collection), {"resamples": "10", **query})
    assert response.status_code == 400
    assert b'id="judge-report-errors"' in response.content


def test_a_metric_no_method_gives_per_topic_is_a_400_with_the_reason(
    researcher_client, monkeypatch
):
    two = make_two_judges()
    monkeypatch.setattr(
        "evaluation.judge_report.scores.per_topic_values", lambda *args, **kwargs: {}
    )
    response = researcher_client.get(url(two.collection), {"metric": "alpha_ndcg"})
    assert response.status_code == 400
    assert b"no installed method gives per-topic" in response.content


def test_a_collection_without_two_judges_says_so(researcher_client):
    collection = make_collection("lonely")
    response = researcher_client.get(url(collection))
    assert response.status_code == 200
    assert b"needs passage ratings (or qrels) from at least two judges" in response.content


def test_a_selected_sample_is_shown_as_not_random(researcher_client, monkeypatch):
    two = make_two_judges()
    real = ppi_method.sampling_check

    def strict(scores, labelled, alpha=0.01):
        return real(scores, labelled, alpha=0.5)  # 6 topics: no test reaches 0.01

    monkeypatch.setattr("evaluation.judge_report.report.sampling_check", strict)
    response = researcher_client.get(url(two.collection), {"k": "3", "resamples": "10"})
    assert response.status_code == 200
    assert b'id="judge-report-sampling"' in response.content
    assert b"Not a random sample" in response.content


def test_the_collection_page_links_it(researcher_client):
    two = make_two_judges()
    response = researcher_client.get(reverse("collection-detail", args=[two.collection.pk]))
    assert url(two.collection).encode() in response.content
    assert b"Judge vs people" in response.content
