"""The leaderboard page: access, the htmx partial, sorting, Kendall tau, and numbers equal to
what `manage.py evaluate` prints for the same parameters."""

import io
import json
import math
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from crux_app.models import Run, RunEntry
from evaluation.crux.evaluate import METRICS
from evaluation.leaderboard.columns import (
    COLUMN_GROUPS,
    RunColumn,
    column_keys,
    columns,
)
from tests.crux_app.factories import make_collection, make_passages, make_run, make_topic
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


@pytest.fixture
def hand():
    return make_hand_collection()


def copy_run(hand, source: str, name: str) -> Run:
    """A new run of the hand collection ranking what ``source`` ranks (a tie with it)."""
    run = Run.objects.create(collection=hand.collection, name=name)
    RunEntry.objects.bulk_create(
        RunEntry(
            run=run,
            topic_id=e.topic_id,
            passage_id=e.passage_id,
            rank=e.rank,
            score=e.score,
            line_order=e.line_order,
        )
        for e in RunEntry.objects.filter(run__name=source, run__collection=hand.collection)
    )
    return run


def url(hand, **params):
    base = reverse("leaderboard", args=[hand.collection.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")


def command_records(*args):
    out = io.StringIO()
    call_command("evaluate", "--collection", "hand", *args, stdout=out)
    return {r["run"]: r for r in json.loads(out.getvalue())}


def test_annotators_get_403_and_anonymous_users_the_login(client, annotator, hand):
    assert client.get(url(hand)).status_code == 302
    client.force_login(annotator)
    assert client.get(url(hand)).status_code == 403


def test_page_numbers_equal_the_command_output(researcher_client, hand):
    for query, args in [
        ({}, []),
        ({"k": 2, "tau": 3}, ["--k", "2", "--tau", "3"]),
        ({"k": "oracle", "missing_as_zero": "on"}, ["--k", "oracle", "--missing-as-zero"]),
        ({"k": 2, "judge": "human-1"}, ["--k", "2", "--judge", "human-1"]),
    ]:
        response = researcher_client.get(url(hand, **query))
        assert response.status_code == 200
        expected = command_records(*args)
        board = response.context["board"]
        assert {r["run"]: r for r in board.rows} == expected
        # The rendered cells are those records, rounded to 4 decimals ('–' for null).
        for record, values in response.context["table"]:
            assert values == [expected[record["run"]][m] for m in board.columns]
        shown = tuple(c.key for c in columns() if c.shown)
        assert board.columns == shown == (*METRICS, "missing_judgments", "topics", *shown[10:])
        assert set(column_keys()) - set(shown) == {"report_coverage"}  # Kendall matrix only
    html = response.text
    r1 = expected["r1"]
    assert f'<td class="num">{r1["ndcg"]:.4f}</td>' in html


def test_page_has_the_local_plotly_the_heatmap_and_topic_links(researcher_client, hand):
    response = researcher_client.get(url(hand, k=2))
    html = response.text
    # Three runs: no selection can draw the tau heatmap, so plotly is not even loaded.
    assert "plotly" not in html
    copy_run(hand, "r1", "r1-copy")
    with_four = researcher_client.get(url(hand, k=2)).text
    assert '<script src="/static/plotly/plotly-cartesian.min.js"' in with_four
    assert re.search(r'(?:src|href)="(?:https?:)?//', with_four) is None  # nothing from elsewhere
    # Three runs: no tau is printed, the page says why (see test_kendall_matrix_between_metrics).
    assert 'id="tau-heatmap-data"' not in html and 'id="tau-table"' not in html
    assert "run-ranking agreement is not measurable with 3 runs (needs at least 4)" in html
    # The selectors show the values in use: tau 3 by default.
    assert '<option value="3" selected>3</option>' in html
    ta = hand.topics["ta"]
    assert reverse("topic-detail", args=[hand.collection.pk, ta.pk]) in html
    # Missing judgments are shown with a note and the marked place for the judging button.
    assert 'id="missing-note"' in html and 'id="judge-missing-slot" data-missing="2"' in html


def test_htmx_requests_get_only_the_table_area(researcher_client, hand):
    response = researcher_client.get(url(hand, k=2), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "<html" not in response.text
    assert 'id="leaderboard-table"' in response.text
    assert "HX-Request" in response["Vary"]


def test_sorting_by_a_header(researcher_client, hand):
    response = researcher_client.get(url(hand, k=2, sort="coverage", order="desc"))
    assert [r["run"] for r in response.context["board"].rows] == ["r1", "r2", "empty"]
    response = researcher_client.get(url(hand, k=2, sort="coverage", order="asc"))
    assert [r["run"] for r in response.context["board"].rows] == ["empty", "r2", "r1"]
    # Undefined values sort last either way: the empty run has no density.
    for order in ("asc", "desc"):
        response = researcher_client.get(url(hand, k=2, sort="density", order=order))
        assert response.context["board"].rows[-1]["run"] == "empty"
    headers = {h["key"]: h for h in response.context["headers"]}
    # The current column flips its order on the next click.
    assert "order=asc" in headers["density"]["query"] and headers["density"]["arrow"] == "▼"
    assert "order" not in headers["map"]["query"]


def test_bad_parameters_name_the_field(researcher_client, hand):
    response = researcher_client.get(url(hand, k="ten"))
    assert response.status_code == 400
    assert "k: k must be an integer" in response.text
    response = researcher_client.get(url(hand, judge="nobody"))
    assert response.status_code == 400 and "judge:" in response.text


def test_kendall_matrix_between_metrics(researcher_client, hand):
    # Five runs: r1 and r1-copy, r2 and r2-copy, empty (ties are fine for tau-b).
    copy_run(hand, "r1", "r1-copy")
    copy_run(hand, "r2", "r2-copy")
    response = researcher_client.get(url(hand, k=2))
    html = response.text
    assert 'id="tau-heatmap-data"' in html and 'id="tau-not-measurable"' not in html
    board = response.context["board"]
    # Coverage at k=2: r1 1.0 > r2 0.5 > empty 0.0; nDCG@2: r2 (1 + 0 + 1) / 3 first.
    assert board.agreement.taus[("coverage", "coverage")].tau == pytest.approx(1.0)
    assert board.agreement.taus[("coverage", "coverage")].n == 5
    # Report coverage (r1 1.0, r2 0.5) joins as a metric, but over 2 systems it is not measured.
    report = board.agreement.taus[("coverage", "report_coverage")]
    assert report.n == 2 and report.tau is None and report.too_few
    heatmap = response.context["heatmap"]["data"][0]
    names = board.agreement.names
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            tau = board.agreement.taus[(a, b)].tau
            assert heatmap["z"][i][j] == tau or (tau is None and heatmap["z"][i][j] is None)
    # The empty run's density is undefined: tau with density compares the 4 other runs.
    density = board.agreement.taus[("coverage", "density")]
    assert density.n == 4 and not math.isnan(density.tau)


@pytest.fixture
def utility_column():
    """A registered method column with fixed values (the empty run has none)."""
    column = COLUMN_GROUPS.register(
        RunColumn(
            key="utility",
            label="Utility@{k}",
            values=lambda collection, params, runs: {"r1": 0.25, "r2": 0.75},
        )
    )
    yield column
    COLUMN_GROUPS.unregister(column.key)


def test_a_registered_column_is_shown_sorted_ranked_and_printed(
    researcher_client, hand, utility_column
):
    response = researcher_client.get(url(hand, k=2, sort="utility", order="desc"))
    assert response.status_code == 200
    board = response.context["board"]
    assert board.columns[-1] == "utility" and board.labels["utility"] == "Utility@2"
    # Sorted by the column, the run without a value last.
    assert [r["run"] for r in board.rows] == ["r2", "r1", "empty"]
    assert [values[-1] for _, values in response.context["table"]] == [0.75, 0.25, None]
    assert "Utility@2" in response.text
    # r2 > r1 on utility, r1 > r2 on coverage: over two runs tau could only be +1 or -1, so
    # it is not measured.
    tau = board.agreement.taus[("coverage", "utility")]
    assert tau.n == 2 and tau.tau is None and tau.too_few
    # The command prints the same column, so page and command still agree.
    records = command_records("--k", "2")
    assert {run: r["utility"] for run, r in records.items()} == {
        "r1": 0.25,
        "r2": 0.75,
        "empty": None,
    }
    assert {r["run"]: r for r in board.rows} == records


def test_a_column_with_one_value_stays_out_of_the_tau_matrix(researcher_client, hand):
    COLUMN_GROUPS.register(RunColumn("lonely", "Lonely", lambda c, p, runs: {"r1": 1.0}))
    try:
        board = researcher_client.get(url(hand, k=2)).context["board"]
    finally:
        COLUMN_GROUPS.unregister("lonely")
    assert "lonely" in board.columns and "lonely" not in board.agreement.names


def test_one_run_gets_a_note_instead_of_an_empty_tau_heatmap(researcher_client):
    collection = make_collection("single")
    topic = make_topic(collection)
    make_run(collection, "only", topic, make_passages(collection, "p", 3))
    response = researcher_client.get(reverse("leaderboard", args=[collection.pk]))
    assert response.status_code == 200
    assert not response.context["board"].any_tau
    assert 'id="tau-undefined"' in response.text and 'id="tau-heatmap"' not in response.text


def test_two_runs_load_no_plotly_and_say_why(researcher_client):
    # Issue #34: the page loaded plotly and drew nothing with two runs.
    collection = make_collection("pair")
    topic = make_topic(collection)
    passages = make_passages(collection, "p", 3)
    make_run(collection, "one", topic, passages)
    make_run(collection, "two", topic, passages[::-1])
    html = researcher_client.get(reverse("leaderboard", args=[collection.pk])).text
    assert "plotly" not in html and 'id="tau-heatmap"' not in html
    assert "not measurable with 2 runs" in html or 'id="tau-undefined"' in html
