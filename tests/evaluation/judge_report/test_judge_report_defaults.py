"""The judge report's bare URL compares the most informative machine judge with the person
(``crux_app.judge_choice``'s one rule), never a nearly constant judge while another is there,
and warns beside the numbers of a nearly constant judge chosen by hand (issue #34)."""

import json

import pytest
from django.urls import reverse

from evaluation.judge_report.forms import default_judges
from tests.evaluation.crux.degenerate_collection import FLAT, HUMAN, SPREAD, make_flat_collection

pytestmark = pytest.mark.django_db


def test_the_bare_url_never_picks_the_nearly_constant_judge(researcher_client):
    flat = make_flat_collection()
    # flat-llm sorts first by name and has as many ratings as spread-llm: it was judge A.
    picked = default_judges(flat.collection)
    assert (picked.judge_a, picked.judge_b) == (SPREAD, HUMAN)
    url = reverse("judge-report", args=[flat.collection.pk])
    data = json.loads(researcher_client.get(url, {"format": "json"}).content)
    assert (data["meta"]["judges"]["a"]["name"], data["meta"]["judges"]["b"]["name"]) == (
        SPREAD,
        HUMAN,
    )
    assert data["warnings"] == []
    page = researcher_client.get(url).content.decode()
    assert 'class="judge-warning"' not in page


def test_a_nearly_constant_judge_chosen_by_hand_is_warned_about(researcher_client):
    flat = make_flat_collection()
    url = reverse("judge-report", args=[flat.collection.pk])
    query = {"judge_a": FLAT, "judge_b": HUMAN}
    page = researcher_client.get(url, query).content.decode()
    assert f'data-kind="constant_ratings" data-judge="{FLAT}"' in page
    assert "gave 4 to 29 of 30 items in flat" in page
    data = json.loads(researcher_client.get(url, {**query, "format": "json"}).content)
    assert [(w["kind"], w["judge"]) for w in data["warnings"]] == [("constant_ratings", FLAT)]


def test_no_empty_per_topic_tau_chart(researcher_client):
    # One topic, two runs: no per-topic tau is defined, so the chart would be empty.
    flat = make_flat_collection()
    url = reverse("judge-report", args=[flat.collection.pk])
    page = researcher_client.get(url).content.decode()
    assert 'id="tau-histogram"' not in page and "tau-histogram-data" not in page
    assert 'id="judge-report-no-tau-histogram"' in page
    assert "No per-topic Kendall τ is drawn" in page
