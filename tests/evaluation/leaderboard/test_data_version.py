"""The collection data version itself: which writes bump which collection, the rule that a bump
before the writes needs their transaction, and the migration that gives existing collections
tokens of their own."""

import importlib

import pytest
from django.apps import apps
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from crux_app import data_version
from crux_app.dataio.collection_store import CollectionStore
from crux_app.models import Collection, Judge, Judgment, Topic
from tests.crux_app.factories import make_collection, make_topic
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db


def versions(*collections: Collection) -> list:
    return [data_version.current(c.pk) for c in collections]


def test_a_write_bumps_its_own_collection_only():
    hand = make_hand_collection()
    other = make_collection("other")
    before = versions(hand.collection, other)
    judgment = Judgment.objects.filter(judge=hand.llm).first()
    judgment.rating = 5
    judgment.save()
    after = versions(hand.collection, other)
    assert after[0] != before[0]
    assert after[1] == before[1]


def test_deleting_a_judge_bumps_the_collections_it_judged():
    hand = make_hand_collection()
    other = make_collection("other")
    before = versions(hand.collection, other)
    Judge.objects.get(pk=hand.human.pk).delete()
    after = versions(hand.collection, other)
    assert after[0] != before[0]
    assert after[1] == before[1]


def test_deleting_a_topic_bumps_and_deleting_a_collection_is_quiet():
    collection = make_collection("c")
    topic = make_topic(collection, "t1")
    before = data_version.current(collection.pk)
    Topic.objects.filter(pk=topic.pk).delete()
    assert data_version.current(collection.pk) != before
    make_topic(collection, "t2")
    make_topic(collection, "t3")
    with CaptureQueriesContext(connection) as queries:
        collection.delete()  # its topics' signals see the collection's deletion
    assert not Collection.objects.filter(pk=collection.pk).exists()
    bumps = [q["sql"] for q in queries if q["sql"].startswith('UPDATE "crux_app_collection"')]
    assert bumps == []


def test_bump_topics_bumps_each_topics_collection():
    a, b, c = make_collection("a"), make_collection("b"), make_collection("c")
    ta, tb = make_topic(a, "t"), make_topic(b, "t")
    before = versions(a, b, c)
    data_version.bump_topics([ta.pk, tb.pk])
    after = versions(a, b, c)
    assert after[0] != before[0] and after[1] != before[1] and after[2] == before[2]


@pytest.mark.django_db(transaction=True)
def test_a_bump_before_the_writes_is_refused_outside_their_transaction():
    collection = make_collection("c")
    with pytest.raises(data_version.NotInTransaction):
        CollectionStore(collection)
    with transaction.atomic():
        before = data_version.current(collection.pk)
        CollectionStore(collection)
        assert data_version.current(collection.pk) != before


def test_the_migration_gives_every_collection_its_own_token():
    migration = importlib.import_module("crux_app.migrations.0005_collection_data_version")
    a, b = make_collection("a"), make_collection("b")
    Collection.objects.update(data_version=a.data_version)  # as AddField leaves them
    migration.give_each_collection_its_own_version(apps, None)
    tokens = versions(a, b)
    assert tokens[0] != tokens[1]
