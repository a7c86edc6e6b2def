"""The topic page sums up every method for its topic (crux_app.topic_summaries): one card per
registered method, built from stored rows, linking to the method's page, and an empty state
that names the job that fills it."""

import re

import pytest
from django.urls import reverse

from crux_app.topic_summaries import (
    TOPIC_SUMMARIES,
    TopicSummary,
    registered_summaries,
    summaries_for,
)
from tests.evaluation.topic_summary_seed import make_summary_topics

pytestmark = pytest.mark.django_db


def topic_url(topic) -> str:
    return reverse("topic-detail", args=[topic.collection_id, topic.pk])


def card(html: str, key: str) -> str:
    match = re.search(rf'<article [^>]*data-summary="{key}">(.*?)</article>', html, re.S)
    assert match, f"no {key} summary on the page"
    return match.group(1)


def test_every_method_registers_a_summary_in_order():
    assert [e.key for e in registered_summaries()] == [
        "crux",
        "seper",
        "dense",
        "scaar",
        "reteval",
        "nuggets",
    ]


def test_a_topic_with_stored_rows_shows_each_methods_summary(researcher_client):
    data = make_summary_topics()
    response = researcher_client.get(topic_url(data.topic))
    assert response.status_code == 200
    html = response.content.decode()
    assert (
        html.index('id="request"')
        < html.index('id="topic-methods"')
        < html.index('id="subquestions"')
    )
    cid, tid = data.collection.pk, data.topic.pk
    crux = card(html, "crux")
    assert f'href="{reverse("crux-topic", args=[cid, tid])}"' in crux
    assert re.search(r'data-run="bm25">.*?<b>1.00</b>.*?2 / 2', crux, re.S)
    assert re.search(r'data-run="dense-run">.*?<b>0.00</b>.*?0 / 2', crux, re.S)
    seper = card(html, "seper")
    assert f'href="{reverse("seper-topic", args=[cid, tid])}"' in seper
    assert "bm25 top-2" in seper and "0.600" in seper and "Gold passages" in seper
    assert "1 of 2 single passages helped" in seper
    dense = card(html, "dense")
    assert f"?result={data.dense_newest.pk}" in dense and "1 necessary · 2 unnecessary" in dense
    scaar = card(html, "scaar")
    assert reverse("scaar-answer", args=[cid, data.scaar.pk]) in scaar
    assert "2 / 3 sentences" in scaar
    reteval = card(html, "reteval")
    assert f"{reverse('reteval-topic', args=[cid, tid])}#result-bm25-2" in reteval
    assert ">D</b>" in reteval and ">No<" in reteval
    nuggets = card(html, "nuggets")
    assert f"{reverse('nuggets-topic', args=[cid, tid])}#run-rag-bm25" in nuggets
    assert re.search(r'data-run="rag-bm25">.*?<td class="num">1</td>', nuggets, re.S)
    assert "Nothing stored yet" not in html


def test_a_topic_with_nothing_stored_says_which_job_fills_each_summary(researcher_client):
    data = make_summary_topics()
    html = researcher_client.get(topic_url(data.bare)).content.decode()
    cid = data.collection.pk
    for key, job, start in [
        ("crux", "Judge answerability", "crux-start"),
        ("seper", "SePer", "seper-start"),
        ("dense", "DENSE", "dense-start"),
        ("scaar", "SCAAR", "scaar-start"),
        ("reteval", "LLM-retEval", "reteval-start"),
        ("nuggets", "Nugget judging", "nuggets-start"),
    ]:
        text = card(html, key)
        assert f"the <b>{job}</b> job fills this" in text, key
        assert f'href="{reverse(start, args=[cid])}"' in text, key
    assert "this topic has none" in card(html, "seper")  # no gold answers
    assert "it has none yet" in card(html, "scaar")  # no generated answers


def test_the_registry_names_no_method_and_lists_a_new_summary_last(researcher_client):
    data = make_summary_topics()

    class Nothing:
        empty = True
        empty_note = "Waiting for the test."

    entry = TopicSummary(
        key="zz-test",
        title="A test summary",
        build=lambda topic: Nothing(),
        template="unused.html",
        job_kind="no-such-kind",
        start_url_name="collection-detail",
        page_url_name="collection-detail",
        page_takes_topic=False,
    )
    TOPIC_SUMMARIES.register(entry)
    try:
        resolved = summaries_for(data.bare)
        # In declaration order: after every installed method's summary.
        assert resolved[-1].key == "zz-test" and resolved[-1].empty
        assert resolved[-1].job_label == "no-such-kind"  # an unknown kind shows its raw name
        html = researcher_client.get(topic_url(data.bare)).content.decode()
        assert "Waiting for the test. Nothing stored yet" in card(html, "zz-test")
    finally:
        TOPIC_SUMMARIES.unregister("zz-test")
    assert "zz-test" not in {e.key for e in registered_summaries()}


def test_the_topic_page_stays_a_bounded_number_of_queries(
    researcher_client, django_assert_max_num_queries
):
    data = make_summary_topics()
    researcher_client.get(topic_url(data.topic))
    with django_assert_max_num_queries(45):
        assert researcher_client.get(topic_url(data.topic)).status_code == 200
