"""With fewer than four runs the "Judge vs people" report says run-ranking agreement is not
measurable instead of headlining a tau of +-1 (page, JSON and HTML downloads), and every
report says whose grades its metric reads."""

import json
import re

import pytest
from django.urls import reverse

from crux_app.models import Run
from tests.evaluation.judge_report.two_judges import make_two_judges

pytestmark = pytest.mark.django_db

PARAMS = {"judge_a": "llm-judge", "judge_b": "people", "k": "3", "resamples": "50"}
MESSAGE = "run-ranking agreement is not measurable with 3 runs (needs at least 4)"


@pytest.fixture
def three_runs():
    two = make_two_judges()
    Run.objects.filter(collection=two.collection, name="xtra").delete()
    return two


def get(client, collection, **extra):
    response = client.get(reverse("judge-report", args=[collection.pk]), {**PARAMS, **extra})
    assert response.status_code == 200
    return response


def test_the_page_says_agreement_is_not_measurable_and_prints_no_tau(researcher_client, three_runs):
    html = get(researcher_client, three_runs.collection).content.decode()
    headline = re.search(r'id="judge-report-headline"[^>]*>(.*?)</p>', html, re.S)
    assert headline and MESSAGE in headline.group(1)
    assert 'data-statistic="kendall_tau"' not in html and 'data-statistic="tau_ap"' not in html
    assert "(not measured either: " in html  # the per-topic taus neither
    # The runs' scores and the swapped pairs are still shown.
    for run in ("best", "mid", "worst"):
        assert f"<td>{run}</td>" in html


def test_the_downloads_say_so_too(researcher_client, three_runs):
    data = json.loads(get(researcher_client, three_runs.collection, format="json").content)
    ranking = data["run_ranking"]
    assert ranking["not_measurable"] == MESSAGE and ranking["n_runs"] == 3
    assert ranking["kendall_tau"] is None and ranking["kendall_tau_ci"] is None
    assert ranking["tau_ap"] is None and ranking["tau_ap_symmetric"] is None
    assert all(t["tau"] is None for t in data["per_topic"]["topics"])
    assert len(ranking["runs"]) == 3
    html = get(researcher_client, three_runs.collection, format="html").content.decode()
    assert MESSAGE in html and 'data-statistic="kendall_tau"' not in html


def test_four_runs_are_measured(researcher_client):
    two = make_two_judges()
    data = json.loads(get(researcher_client, two.collection, format="json").content)
    assert data["run_ranking"]["not_measurable"] == ""
    assert data["run_ranking"]["kendall_tau"] is not None


def test_the_report_says_whose_grades_its_metric_reads(researcher_client, three_runs):
    data = json.loads(get(researcher_client, three_runs.collection, format="json").content)
    assert data["meta"]["metric_basis"].startswith("under each judge's own grades")
    html = get(researcher_client, three_runs.collection).content.decode()
    basis = re.search(r'id="judge-report-basis">(.*?)</span>', html, re.S).group(1)
    assert "nDCG@3" in html and "under each judge&#x27;s own grades" in basis
