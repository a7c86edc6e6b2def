"""The leaderboard's cache: a second request is served without computing, every parameter that
changes the numbers has its own entry, sorting reorders the cached rows exactly as a computed
board is sorted, and a registry or settings change is never served an old table."""

import pytest
from django.urls import reverse

from crux_app import data_version
from evaluation.leaderboard import board_cache
from evaluation.leaderboard.board_cache import cache_key, compute_board, page_inputs
from evaluation.leaderboard.columns import (
    COLUMN_GROUPS,
    LeaderboardParams,
    RunColumn,
)
from evaluation.leaderboard.table import build_leaderboard
from tests.crux_app.factories import make_collection
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


@pytest.fixture
def hand():
    return make_hand_collection()


@pytest.fixture
def counted():
    """A registered column that counts how often the leaderboard computes it."""
    calls = []

    def values(collection, params, run_names):
        calls.append(params)
        return {name: float(len(name)) for name in run_names}

    COLUMN_GROUPS.register(RunColumn("counted", "Counted", values))
    yield calls
    COLUMN_GROUPS.unregister("counted")


def url(hand, **params):
    base = reverse("leaderboard", args=[hand.collection.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")


def rows(response):
    return [(record["run"], *values) for record, values in response.context["table"]]


def test_a_second_request_is_served_from_the_cache(researcher_client, hand, counted):
    first = researcher_client.get(url(hand, k=2))
    second = researcher_client.get(url(hand, k=2))
    assert first.status_code == second.status_code == 200
    assert len(counted) == 1
    assert rows(second) == rows(first)
    assert second.context["topics"] == first.context["topics"]


def test_each_parameter_that_changes_the_numbers_has_its_own_entry(
    researcher_client, hand, counted
):
    queries = [
        {"k": 2},
        {"k": 3},
        {"k": "oracle"},
        {"k": 2, "tau": 4},
        {"k": 2, "judge": "human-1"},
        {"k": 2, "judge": "llm-judge"},  # the default judge, named: the same numbers, own key
        {"k": 2, "missing_as_zero": "on"},
        {"k": 2, "qrels_source": "imported"},
    ]
    # judge="" asks for the default judge: without it, the judge chosen last is remembered.
    queries = [{"judge": "", **query} for query in queries]
    for query in queries:
        assert researcher_client.get(url(hand, **query)).status_code == 200
    assert len(counted) == len(queries)
    for query in queries:  # all of them cached now
        researcher_client.get(url(hand, **query))
    assert len(counted) == len(queries)


def test_sorting_reorders_the_cached_rows_as_a_computed_board_is_sorted(
    researcher_client, hand, counted
):
    params = LeaderboardParams(k=2)
    for sort, order in [("coverage", "desc"), ("coverage", "asc"), ("run", "desc"),
                        ("ndcg", "asc"), ("counted", "desc")]:  # fmt: skip
        response = researcher_client.get(url(hand, k=2, sort=sort, order=order))
        computed = build_leaderboard(hand.collection, params, sort, order == "desc")
        assert response.context["board"].rows == computed.rows
        assert (response.context["board"].sort, response.context["board"].descending) == (
            sort,
            order == "desc",
        )
    # One computation for the page, the others are this test's own.
    assert len(counted) == 1 + 5


def test_a_column_registered_later_is_computed_not_missing(researcher_client, hand):
    researcher_client.get(url(hand, k=2))
    COLUMN_GROUPS.register(RunColumn("late", "Late", lambda c, p, runs: dict.fromkeys(runs, 0.5)))
    try:
        board = researcher_client.get(url(hand, k=2)).context["board"]
    finally:
        COLUMN_GROUPS.unregister("late")
    assert "late" in board.columns
    assert {r["late"] for r in board.rows} == {0.5}
    assert "late" not in researcher_client.get(url(hand, k=2)).context["board"].columns


def test_the_tokenizer_setting_is_part_of_the_key(researcher_client, hand, settings):
    key = cache_key(hand.collection, "board", LeaderboardParams(k=2))
    settings.TOKENIZER_MODEL = "another-tokenizer"
    assert cache_key(hand.collection, "board", LeaderboardParams(k=2)) != key


def test_the_code_version_is_part_of_the_key(hand, monkeypatch):
    key = cache_key(hand.collection, "board", LeaderboardParams(k=2))
    monkeypatch.setattr(board_cache, "code_version", lambda: "after-a-deploy")
    assert cache_key(hand.collection, "board", LeaderboardParams(k=2)) != key


def test_a_new_data_version_is_a_new_key_and_recomputes(researcher_client, hand, counted):
    researcher_client.get(url(hand, k=2))
    key = cache_key(hand.collection, "board", LeaderboardParams(k=2))
    data_version.bump(hand.collection.pk)
    hand.collection.refresh_from_db()
    assert cache_key(hand.collection, "board", LeaderboardParams(k=2)) != key
    researcher_client.get(url(hand, k=2))
    assert len(counted) == 2


def test_two_collections_never_share_an_entry(hand):
    other = make_collection("hand-2")
    params = LeaderboardParams(k=2)
    assert cache_key(hand.collection, "board", params) != cache_key(other, "board", params)
    assert hand.collection.data_version != other.data_version


def test_cached_inputs_and_board_equal_computed_ones(hand):
    inputs = page_inputs(hand.collection)
    assert page_inputs(hand.collection) == inputs  # read back from the cache
    names = [t["name"] for t in inputs.topics]
    assert names == ["ta", "tb", "tc"]
    assert [j.name for j in inputs.judges] == ["llm-judge", "human-1"]
    cached = compute_board(hand.collection, LeaderboardParams(k=2), inputs.depths)
    assert cached.names == ["empty", "r1", "r2"]
    computed = build_leaderboard(hand.collection, LeaderboardParams(k=2), "run", False)
    assert cached.board.rows == computed.rows
