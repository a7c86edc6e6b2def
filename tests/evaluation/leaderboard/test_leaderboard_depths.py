"""Columns whose values exist only at the depths a job stored: the leaderboard lists those
depths, defaults to one with data, and says how many topics are behind each cell (through the
column registry: the leaderboard names no method)."""

import pytest
from django.urls import reverse

from crux_app.models import Topic
from evaluation.dense.leaderboard_columns import dense_k_topics
from evaluation.leaderboard.columns import (
    COLUMN_GROUPS,
    Column,
    RunColumn,
    best_covered_k,
)
from evaluation.leaderboard.depths import Depths
from evaluation.reteval.leaderboard_columns import reteval_k_topics
from evaluation.seper.job import run_seper_job
from evaluation.seper.leaderboard_columns import delta_seper_k_topics
from tests.crux_app.factories import make_collection, make_passages, make_run, make_topic
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

STRICT = Column("strict", "Strict@{k}")
FALLBACK = Column("fallback", "Fallback", k_fallback=True)


def test_the_default_k_is_a_depth_where_the_most_columns_have_data():
    assert Depths({}, 9).default_k() == 10  # nothing reports depths: the usual default
    assert Depths({"a": {3: {"r1": 1}}}, 9).default_k() == 3
    # 10 wins a tie in columns; otherwise the most columns, then topics, then the shallowest.
    assert Depths({"a": {3: {"r1": 9}, 10: {"r1": 1}}}, 9).default_k() == 10
    assert Depths({"a": {3: {"r": 1}, 5: {"r": 2}}, "b": {5: {"r": 1}}}, 9).default_k() == 5
    assert Depths({"a": {3: {"r": 2}, 5: {"r": 2}}}, 9).default_k() == 3
    assert Depths({"a": {3: {"r": 0}}}, 9).default_k() == 10  # no topic behind it: no data
    # A column that shows another depth's value has data at any k: it does not choose.
    assert Depths({"f": {3: {"r": 4}}}, 9, frozenset({"f"})).default_k() == 10


def test_the_depth_options_name_each_column_with_data_and_its_topics():
    depths = Depths({"strict": {3: {"r1": 1, "r2": 2}, 5: {"r1": 1}}, "fallback": {5: {}}}, 9)
    [three, five] = depths.options([STRICT, FALLBACK])
    assert (three.k, [(c.label, c.topics) for c in three.columns]) == (3, [("Strict@k", 2)])
    assert (five.k, [(c.label, c.topics) for c in five.columns]) == (5, [("Strict@k", 1)])
    assert depths.suggested_ks() == [3, 5, 10, 20]


def test_each_cell_says_the_topics_behind_it_or_where_the_run_has_values():
    depths = Depths({"strict": {3: {"r1": 1}}, "fallback": {2: {"r1": 4}, 7: {"r1": 4}}}, 9)
    note = depths.note(STRICT, "r1", 3, 0.5)
    assert (note.text, note.title) == (
        "1/9 topics",
        "a value for 1 of the collection's 9 topics at k = 3",
    )
    blank = depths.note(STRICT, "r1", 10, None)
    assert (blank.text, blank.title) == ("k = 3", "no stored value at k = 10; stored at k = 3")
    assert depths.note(STRICT, "r2", 10, None).text == ""  # nothing anywhere: a plain dash
    moved = depths.note(FALLBACK, "r1", 10, 0.25)
    assert moved.text == "4/9 topics, k = 7"  # the deepest of the best-covered depths
    assert depths.note(Column("other", "Other"), "r1", 10, 0.5).text == ""
    assert best_covered_k({2: 4, 7: 4, 9: 1}) == 7 and best_covered_k({}) is None


@pytest.fixture
def stored_column():
    """A registered column with values at k = 3 for one of the collection's three topics."""

    def values(collection, params, run_names):
        return {name: 0.5 if params.k == 3 and name == "bm25" else None for name in run_names}

    def k_topics(collection, run_names):
        return {3: {"bm25": 1}}

    COLUMN_GROUPS.register(RunColumn("stored_at_3", "Stored@{k}", values, k_topics=k_topics))
    yield
    COLUMN_GROUPS.unregister("stored_at_3")


@pytest.mark.django_db
def test_the_page_defaults_to_a_depth_with_data_and_says_the_topics(
    researcher_client, stored_column, settings
):
    settings.TOKENIZER_MODEL = "whitespace"
    collection = make_collection("depths")
    topics = [make_topic(collection, f"t{i}") for i in range(3)]
    passages = make_passages(collection, "d", 2)
    make_run(collection, "bm25", topics[0], passages)
    url = reverse("leaderboard", args=[collection.pk])

    html = researcher_client.get(url).content.decode()
    assert 'name="k" size="6" value="3"' in html  # the k in use, not the blank 10
    assert 'id="k-values"' in html and "<b>k = 3</b> (shown): Stored@k 1 of 3 topics" in html
    assert (
        '<td class="num" title="a value for 1 of the collection&#x27;s 3 topics at k = 3">' in html
    )
    assert '0.5000<span class="cell-note">1/3 topics</span>' in html
    assert '<option value="3">' in html

    at_10 = researcher_client.get(url + "?k=10").content.decode()
    assert 'value="10"' in at_10 and '<a href="?k=3">k = 3</a>' in at_10
    assert '–<span class="cell-note">k = 3</span>' in at_10
    assert "no stored value at k = 10; stored at k = 3" in at_10
    partial = researcher_client.get(url + "?k=10&tau=4", HTTP_HX_REQUEST="true").content.decode()
    assert '<a href="?k=3&amp;tau=4">k = 3</a>' in partial
    assert researcher_client.get(url + "?k=oracle").status_code == 200


@pytest.mark.django_db
def test_without_stored_depths_the_page_keeps_k_10_and_lists_none(researcher_client):
    collection = make_collection("plain")
    make_run(collection, "bm25", make_topic(collection, "t1"), make_passages(collection, "d", 1))
    html = researcher_client.get(reverse("leaderboard", args=[collection.pk])).content.decode()
    assert 'name="k" size="6" value="10"' in html and 'id="k-values"' not in html
    assert "cell-note" not in html


@pytest.mark.django_db
def test_delta_seper_reports_the_depth_and_topics_it_scored(researcher_client):
    data = seper_collection()  # two topics, one with gold answers: SePer scores one
    run_seper_job(seper_job(data, k=2), CountingModels().models())
    assert delta_seper_k_topics(data.collection, ["bm25", "other"]) == {2: {"bm25": 1}}
    html = researcher_client.get(reverse("leaderboard", args=[data.collection.pk])).content.decode()
    assert 'name="k" size="6" value="2"' in html
    assert "<b>k = 2</b> (shown): ΔSePer@k 1 of 2 topics" in html
    assert '<span class="cell-note">1/2 topics</span>' in html


@pytest.mark.django_db
def test_reteval_reports_each_depth_it_judged(researcher_client):
    data = make_reteval_collection()
    run_scenario(data, ks=(1, 2))
    assert reteval_k_topics(data.collection, ["bm25"]) == {1: {"bm25": 3}, 2: {"bm25": 3}}
    assert reteval_k_topics(make_collection("empty"), ["bm25"]) == {}
    html = researcher_client.get(reverse("leaderboard", args=[data.collection.pk])).content.decode()
    assert 'name="k" size="6" value="1"' in html  # tie: the shallowest
    assert "LLM-retEval@k 3 of 3 topics" in html and '<a href="?k=2">k = 2</a>' in html


@pytest.mark.django_db
def test_dense_reports_its_depths_and_shows_another_depth_when_k_has_none(researcher_client):
    data = make_dense_data()
    run_job(data, RuleModels().models(), k=3)
    assert dense_k_topics(data.collection, ["bm25"]) == {3: {"bm25": 2}}
    n_topics = Topic.objects.filter(collection=data.collection).count()
    url = reverse("leaderboard", args=[data.collection.pk])
    html = researcher_client.get(url + "?k=10").content.decode()
    assert f'<span class="cell-note">2/{n_topics} topics, k = 3</span>' in html
    assert "DENSE uncertain 2 of 2 topics" in html
