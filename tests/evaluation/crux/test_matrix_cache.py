"""The matrix page's rows are cached under the collection's data version: a second request reads
none of them, any selector is computed from the cached rows exactly as from fresh ones, and a
write (a researcher's own rating on the page, an import's bump) shows on the next request."""

import json
import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from crux_app import data_version
from crux_app.models import Judgment, Topic
from evaluation.crux.matrix import stored, topic_cache
from tests.evaluation.crux.matrix_seed import make_matrix_topic

pytestmark = pytest.mark.django_db


@pytest.fixture
def hand():
    return make_matrix_topic()


@pytest.fixture
def rating_reads(monkeypatch):
    """How many times the page read the topic's ratings from the database."""
    reads = []
    read = stored.int_columns

    def counted(*args, **kwargs):
        reads.append(args)
        return read(*args, **kwargs)

    monkeypatch.setattr(stored, "int_columns", counted)
    return reads


def page(client, topic, **params):
    url = reverse("crux-topic", args=[topic.collection_id, topic.pk])
    return client.get(url, params)


def shipped(response) -> dict:
    match = re.search(
        r'<script id="matrix-data" type="application/json">(.*?)</script>', response.text, re.S
    )
    assert match, "the page has no matrix-data block"
    return json.loads(match.group(1))


def forget(topic: Topic) -> None:
    """Drop the topic's cached rows (every run's), as an expired entry would be."""
    topic = Topic.objects.select_related("collection").get(pk=topic.pk)
    runs = topic_cache.read_topic_rows(topic).options.runs
    keys = [topic_cache.cache_key(topic, f"run:{run.id}") for run in runs]
    cache.delete_many([topic_cache.cache_key(topic, "topic"), *keys])


def test_a_second_request_reads_no_rows_and_ships_the_same_page(
    researcher_client, hand, rating_reads, django_assert_max_num_queries
):
    first = page(researcher_client, hand.topic, k=2)
    assert len(rating_reads) == 1
    # Session, user, role check, topic (with its collection's version), role in the template,
    # the jobs still filling the matrix (the running-job banner).
    with django_assert_max_num_queries(6):
        second = page(researcher_client, hand.topic, k=2)
    assert len(rating_reads) == 1
    assert shipped(second) == shipped(first)
    assert second.context["matrix"].n_covered == first.context["matrix"].n_covered


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"k": 2},
        {"k": 1, "tau": 4},
        {"tau": 1, "k": 50},
        {"judge": "llm_b"},
        {"judge": "human", "k": 3},
        {"run": "dense", "k": 1},
        {"run": "dense", "colour": "expected"},
    ],
)
def test_every_selector_is_computed_from_cached_rows_as_from_fresh_ones(
    researcher_client, hand, params
):
    names = {"llm_b": hand.llm_b.pk, "human": hand.human.pk, "dense": hand.dense.pk}
    params = {k: names.get(v, v) for k, v in params.items()}
    page(researcher_client, hand.topic)  # caches the rows (and bm25's order)
    page(researcher_client, hand.topic, **params)  # and the selected run's
    cached = page(researcher_client, hand.topic, **params)
    forget(hand.topic)
    fresh = page(researcher_client, hand.topic, **params)
    assert shipped(cached) == shipped(fresh)
    strip = re.compile(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]+"')
    assert strip.sub("", cached.text) == strip.sub("", fresh.text)


def test_the_researchers_own_rating_shows_on_the_next_request(researcher_client, hand):
    p3, sq = hand.passages[3], hand.subquestions[1]
    before = shipped(page(researcher_client, hand.topic))
    own_judges = [j for j in before["judges"] if j["name"] == "rita"]
    assert own_judges == []
    url = reverse("crux-topic-cell", args=[hand.topic.collection_id, hand.topic.pk])
    posted = researcher_client.post(
        f"{url}?sq={sq.pk}&passage={p3.pk}",
        {"subquestion": sq.pk, "passage": p3.pk, "rating": 0},
    )
    assert posted.status_code == 200 and "HX-Trigger" in posted
    after = shipped(page(researcher_client, hand.topic))
    (rita,) = [i for i, j in enumerate(after["judges"]) if j["name"] == "rita"]
    row = next(i for i, r in enumerate(after["rows"]) if r["id"] == sq.pk)
    column = next(i for i, c in enumerate(after["columns"]) if c["id"] == p3.pk)
    assert after["ratings"][rita][row][column] == 0


def test_a_bulk_write_shows_once_its_writer_bumps_the_version(researcher_client, hand):
    # bulk_create sends no signal: writers that bypass save() bump themselves (data_version).
    sq, p5 = hand.subquestions[0], hand.passages[5]
    page(researcher_client, hand.topic)
    Judgment.objects.bulk_create(
        [
            Judgment(
                judge=hand.llm_a,
                topic=hand.topic,
                subquestion=sq,
                passage=p5,
                task=Judgment.Task.PASSAGE_RATING,
                rating=5,
            )
        ]
    )
    data_version.bump(hand.topic.collection_id)
    data = shipped(page(researcher_client, hand.topic, judge=hand.llm_a.pk))
    assert hand.passages[5].pk in [c["id"] for c in data["columns"]]


def test_collections_never_share_cached_rows(hand):
    topic = Topic.objects.select_related("collection").get(pk=hand.topic.pk)
    key = topic_cache.cache_key(topic, "topic")
    data_version.bump(topic.collection_id)
    topic = Topic.objects.select_related("collection").get(pk=hand.topic.pk)
    assert topic_cache.cache_key(topic, "topic") != key
