"""The coverage-matrix page: ratings, columns, answerable/covered marks and disagreements, read
from the JSON the page ships to the browser."""

import json
import re

import pytest
from django.urls import reverse

from evaluation.crux.matrix.matrix import NOT_JUDGED, UNPARSABLE, Disagreement
from evaluation.crux.oracle import ORACLE_POLICY
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_qrels,
    make_run,
    make_topic,
    rate_passages,
)
from tests.evaluation.crux.matrix_seed import make_matrix_topic

pytestmark = pytest.mark.django_db

NJ, UP = NOT_JUDGED, UNPARSABLE


def matrix_url(topic, **params) -> str:
    url = reverse("crux-topic", args=[topic.collection_id, topic.pk])
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"{url}?{query}" if query else url


def shipped(response) -> dict:
    """The JSON the page hands to its script (the json_script block)."""
    html = response.content.decode()
    match = re.search(
        r'<script id="matrix-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, "the page has no matrix-data block"
    return json.loads(match.group(1))


@pytest.fixture
def hand():
    return make_matrix_topic()


def column_ids(data: dict) -> list[int]:
    return [c["id"] for c in data["columns"]]


def test_matrix_ships_the_selected_judges_ratings_in_run_order(researcher_client, hand):
    p = hand.passages
    response = researcher_client.get(matrix_url(hand.topic, k=2))
    assert response.status_code == 200
    data = shipped(response)
    # Top-k in (rank, line) order although every rank is 1; then the other judged passages
    # (p0 and p4 further down the run, p2 judged only by a human); p5 is in no pool.
    assert column_ids(data) == [p[3].pk, p[1].pk, p[0].pk, p[4].pk, p[2].pk]
    # Placeholder position 2 is no row, though a stray judgment of it exists.
    assert [r["id"] for r in data["rows"]] == [hand.subquestions[i].pk for i in (0, 1, 3)]
    heatmap = data["figure"]["data"][0]
    assert heatmap["z"] == [
        [0, 5, 4, 1, NJ],
        [3, 2, 4, 0, NJ],
        [UP, 4, 1, 2, NJ],
    ]
    assert heatmap["text"][2][0] == "unparsable"
    assert heatmap["text"][0][4] == "not judged"
    assert data["judge"] == hand.llm_a.pk  # the LLM judge with the most judgments
    # Every column has an axis label: its run position, else its passage id.
    assert data["figure"]["layout"]["xaxis"]["ticktext"] == ["#1", "#2", "#3", "#4", "m1:0#2"]


def test_judge_selector_lists_every_judge_and_switches_ratings(researcher_client, hand):
    response = researcher_client.get(matrix_url(hand.topic, judge=hand.llm_b.pk, k=2))
    html = response.content.decode()
    for judge in ("llm-a", "llm-b", "annotator1"):
        assert f">{judge} (" in html
    data = shipped(response)
    assert data["judge"] == hand.llm_b.pk
    assert data["figure"]["data"][0]["z"][0] == [3, NJ, 3, NJ, NJ]
    assert data["figure"]["data"][0]["z"][1] == [NJ] * 5


def test_column_labels_mark_grades_from_the_preferred_source_and_run_positions(
    researcher_client, hand
):
    data = shipped(researcher_client.get(matrix_url(hand.topic, k=2)))
    labels = [c["label"] for c in data["columns"]]
    assert labels[0] == "m1:0#3 · #1 in bm25 · fully redundant (1) [imported]"
    # "auto" says p1 is required, but "imported" has more rows and wins.
    assert labels[1] == "m1:0#1 · #2 in bm25 · partially redundant (2) [imported]"
    assert labels[2] == "m1:0#0 · #3 in bm25 · required (3) [imported]"
    assert labels[4] == "m1:0#2 · fully redundant (1) [auto]"  # only "auto" grades p2
    strip = data["figure"]["data"][1]
    assert strip["z"][0] == [1, 2, 3, 3, 1]
    assert strip["z"][1] == [12, 12, 11, 11, 10]  # top-k, further down the run, not in it


def _marks(response) -> list[tuple[bool | None, bool, bool]]:
    return [(r.answerable, r.covered, r.undetermined) for r in response.context["matrix"].rows]


def test_answerable_and_covered_marks_at_tau_3(researcher_client, hand):
    response = researcher_client.get(matrix_url(hand.topic, k=2, tau=3))
    assert _marks(response) == [(True, True, False), (True, True, False), (False, False, False)]
    ticks = shipped(response)["figure"]["layout"]["yaxis"]["ticktext"]
    assert "● 0." in ticks[0] and "● 1." in ticks[1]
    assert "– 3." in ticks[2]
    assert re.search(r"Coverage of <b>bm25</b> top-2 at τ=3:\s*<b>1.00</b>", response.text)


def test_answerable_and_covered_marks_at_tau_4(researcher_client, hand):
    response = researcher_client.get(matrix_url(hand.topic, k=2, tau=4))
    # Position 1 is still answerable (p0 rates 4) but the top-k rates it 3 and 2.
    assert _marks(response) == [(True, True, False), (True, False, False), (False, False, False)]
    ticks = shipped(response)["figure"]["layout"]["yaxis"]["ticktext"]
    assert "● 0." in ticks[0]
    assert "○</span> 1." in ticks[1]
    assert re.search(r"top-2 at τ=4:\s*<b>0.50</b>\s*\(1 of 2 answerable", response.text)


def test_a_larger_k_covers_more(researcher_client, hand):
    response = researcher_client.get(matrix_url(hand.topic, k=3, tau=4))
    # p0 joins the top-k and rates position 1 a 4.
    assert _marks(response)[1] == (True, True, False)


def test_unjudged_required_passage_is_appended_and_makes_answerability_undetermined(
    researcher_client, hand
):
    p = hand.passages
    make_qrels(hand.topic, {p[5]: 3}, source="imported")
    response = researcher_client.get(matrix_url(hand.topic, k=2))
    data = shipped(response)
    assert column_ids(data)[-1] == p[5].pk
    assert data["columns"][-1]["label"] == "m1:0#5 · required (3) [imported]"
    assert data["figure"]["data"][0]["z"][0][-1] == NJ
    assert _marks(response)[2] == (False, False, True)
    assert "?</span> 3." in data["figure"]["layout"]["yaxis"]["ticktext"][2]


def test_topic_without_required_passages_says_no_oracle_and_marks_nothing(researcher_client):
    collection = make_collection("plain")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    make_run(collection, "bm25", topic, passages)
    make_qrels(topic, {passages[0]: 2})
    rate_passages(make_judge("llm"), topic, passages, rating=lambda pos, i: 5)
    response = researcher_client.get(matrix_url(topic))
    assert 'id="no-oracle"' in response.text and "no oracle set" in response.text
    assert "Coverage of" not in response.text
    assert _marks(response) == [(None, False, False), (None, False, False)]
    ticks = shipped(response)["figure"]["layout"]["yaxis"]["ticktext"]
    assert ticks == ["0. What is aspect 0 of t1?", "1. What is aspect 1 of t1?"]


def test_human_disagreements_are_marked_by_kind(researcher_client, hand):
    data = shipped(researcher_client.get(matrix_url(hand.topic, k=2, tau=3)))
    traces = {t["name"]: t for t in data["figure"]["data"][2:]}
    crosses = traces["human: other side of tau"]
    assert (crosses["x"], crosses["y"]) == ([1], [0])  # human 1 vs llm-a 5
    assert "annotator1: 1" in crosses["text"][0]
    differs = traces["human: other rating"]
    assert (differs["x"], differs["y"]) == ([2], [1])  # human 3 vs llm-a 4, both >= 3
    only = traces["human rating only"]
    assert (only["x"], only["y"]) == ([4], [0])
    # (3, p1): the human agrees with llm-a, so no mark there.
    marked = {(x, y) for t in traces.values() for x, y in zip(t["x"], t["y"], strict=True)}
    assert (1, 2) not in marked


def test_disagreement_depends_on_tau(researcher_client, hand):
    response = researcher_client.get(matrix_url(hand.topic, k=2, tau=4))
    matrix = response.context["matrix"]
    # At tau 4 the human's 3 and llm-a's 4 fall on either side.
    assert matrix.disagreement[1, 2] == Disagreement.CROSSES_TAU
    assert matrix.n_disagreements == 2


def test_selecting_the_human_judge_compares_with_nobody_else(researcher_client, hand):
    data = shipped(researcher_client.get(matrix_url(hand.topic, judge=hand.human.pk)))
    assert all(trace["x"] == [] for trace in data["figure"]["data"][2:])


def test_invalid_selectors_fall_back_to_defaults_and_say_so(researcher_client, hand):
    response = researcher_client.get(matrix_url(hand.topic, judge=999999, tau=9, k=0))
    assert response.status_code == 200
    sel = response.context["selection"]
    assert (sel.judge.id, sel.run.id, sel.tau, sel.k) == (hand.llm_a.pk, hand.bm25.pk, 3, 10)
    assert "The default is used." in response.text


def test_run_selector_changes_the_leading_columns(researcher_client, hand):
    p = hand.passages
    data = shipped(researcher_client.get(matrix_url(hand.topic, run=hand.dense.pk, k=2)))
    assert column_ids(data)[:2] == [p[4].pk, p[0].pk]


def test_htmx_request_gets_only_the_matrix_area(researcher_client, hand):
    response = researcher_client.get(matrix_url(hand.topic, k=2), headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert "<html" not in response.text
    assert 'id="matrix-controls"' in response.text
    assert shipped(response)["figure"]["data"][0]["z"][0][1] == 5
    assert "HX-Request" in response["Vary"]


def test_page_loads_plotly_locally_and_links_from_the_topic_page(researcher_client, hand):
    response = researcher_client.get(matrix_url(hand.topic))
    assert '<script src="/static/plotly/plotly-cartesian.min.js"' in response.text
    # Nothing from another host (a random CSRF token may spell "cdn": look at URLs only).
    assert re.search(r'(?:src|href)="(?:https?:)?//', response.text) is None
    topic_page = researcher_client.get(
        reverse("topic-detail", args=[hand.topic.collection_id, hand.topic.pk])
    )
    assert matrix_url(hand.topic) in topic_page.text


def test_topic_without_judgments_or_runs_still_renders(researcher_client):
    collection = make_collection("empty")
    topic = make_topic(collection, "t0", n_subquestions=2)
    response = researcher_client.get(matrix_url(topic))
    assert response.status_code == 200
    assert "No judge has rated passages of this topic yet." in response.text
    assert shipped(response)["figure"]["data"][0]["z"] == [[], []]


def test_annotator_gets_403_and_anonymous_goes_to_login(client, annotator, hand):
    url = matrix_url(hand.topic)
    assert client.get(url).status_code == 302
    client.force_login(annotator)
    assert client.get(url).status_code == 403


def test_topic_of_another_collection_is_404(researcher_client, hand):
    other = make_collection("other")
    url = reverse("crux-topic", args=[other.pk, hand.topic.pk])
    assert researcher_client.get(url).status_code == 404


def test_imported_names_are_escaped_in_the_figure(researcher_client, hand):
    sq = hand.subquestions[0]
    sq.text = "Is <b>this</b> & that bold?"
    sq.save()
    hand.bm25.name = "<i>bm25</i>"
    hand.bm25.save()
    data = shipped(researcher_client.get(matrix_url(hand.topic, k=2)))
    assert (
        "0. Is &lt;b&gt;this&lt;/b&gt; &amp; that bold?"
        in data["figure"]["layout"]["yaxis"]["ticktext"][0]
    )
    assert data["figure"]["data"][1]["text"][1][0] == "#1 in &lt;i&gt;bm25&lt;/i&gt;"
    # The script's own hover line writes text, not HTML: it gets the raw label.
    assert data["rows"][0]["label"] == "0. Is <b>this</b> & that bold?"


def test_topic_without_qrels_uses_the_oracle_computed_from_the_judge(researcher_client):
    # One oracle policy: as evaluate and the leaderboard, the greedy required subset of the
    # judge's ratings stands in for qrels, and the page says so in the same words.
    collection = make_collection("plain")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    make_run(collection, "bm25", topic, passages[:1])
    rate_passages(make_judge("llm"), topic, passages, rating=lambda pos, i: 5 if i == pos else 0)
    response = researcher_client.get(matrix_url(topic, k=1))
    assert 'id="oracle-policy"' in response.text and 'id="no-oracle"' not in response.text
    assert ORACLE_POLICY.replace("'", "&#x27;") in response.text
    # Passage 0 answers question 0, passage 1 question 1: both required, both answerable;
    # bm25's top-1 (passage 0) covers one of the two.
    assert "Coverage of" in response.text and "<b>0.50</b>" in response.text
