"""Every write path names what it touched: the unit versions of exactly its topics move, or,
for a write that cannot say (an import, a run, a passage, a judge), the collection's unit
epoch; the collection's data version moves either way (crux_app.data_version)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.contrib.admin import site
from django.db import transaction

from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit
from annotation.workspace.undo import undo
from crux_app import data_version
from crux_app.data_version import DataVersionAdmin
from crux_app.dataio.collection_store import CollectionStore
from crux_app.jobs.runner import run_batches
from crux_app.models import (
    Collection,
    CoverageLabel,
    Job,
    Judge,
    Judgment,
    OutputContext,
    Passage,
    PassageQrel,
    Run,
    RunEntry,
    SubQuestion,
    SubtopicQrel,
    Topic,
)
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.crux_app.factories import make_collection, make_small_collection, make_topic
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Snapshot:
    data_version: object
    epoch: int
    topics: dict[int, int]


def snapshot(collection: Collection) -> Snapshot:
    row = Collection.objects.values_list("data_version", "unit_epoch").get(pk=collection.pk)
    topics = dict(Topic.objects.filter(collection=collection).values_list("pk", "unit_version"))
    return Snapshot(row[0], row[1], topics)


class Watch:
    """What a write moved in the collection: its data version, its epoch, which topics."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection
        self.before = snapshot(collection)

    def moved(self) -> tuple[bool, bool, set[int]]:
        after = snapshot(self.collection)
        topics = {t for t, v in after.topics.items() if self.before.topics.get(t) != v}
        result = (
            after.data_version != self.before.data_version,
            after.epoch != self.before.epoch,
            topics,
        )
        self.before = after
        return result


@pytest.fixture
def small():
    return make_small_collection()


def topic_only(small, watch: Watch, topic: Topic | None = None) -> None:
    assert watch.moved() == (True, False, {(topic or small.topic).pk})


def everything(watch: Watch) -> None:
    version, epoch, _ = watch.moved()
    assert version and epoch


def test_orm_saves_of_a_topics_rows_move_that_topic_only(small):
    watch = Watch(small.collection)
    topic = small.topic
    judgment = Judgment.objects.filter(topic=topic).first()
    judgment.rating = 5 - (judgment.rating or 0)
    judgment.save()
    topic_only(small, watch)
    topic.request = "Another request."
    topic.save()
    topic_only(small, watch)
    question = SubQuestion.objects.filter(topic=topic).first()
    question.text = "Another question?"
    question.save()
    topic_only(small, watch)
    qrel = PassageQrel.objects.filter(topic=topic).first()
    qrel.grade = 0
    qrel.save()
    topic_only(small, watch)
    SubtopicQrel.objects.create(
        topic=topic, passage=small.passages[0], subquestion=question, relevant=True
    )
    topic_only(small, watch)
    entry = RunEntry.objects.filter(topic=topic).first()
    entry.score = 9.0
    entry.save()
    topic_only(small, watch)


def test_orm_saves_of_an_outputs_rows_move_its_topic_only(small):
    watch = Watch(small.collection)
    output = small.output
    output.system = "renamed"
    output.save()
    topic_only(small, watch, output.topic)
    context = OutputContext.objects.filter(output=output).first()
    context.save()
    topic_only(small, watch, output.topic)
    CoverageLabel.objects.create(judge=small.llm, output=output, coverage=0.5)
    topic_only(small, watch, output.topic)
    output.delete()
    topic_only(small, watch, output.topic)


def test_rows_of_no_single_topic_move_the_epoch(small):
    watch = Watch(small.collection)
    passage = small.passages[0]
    passage.text = "changed"
    passage.save()
    everything(watch)
    small.bm25.metadata = {"changed": True}
    small.bm25.save()
    everything(watch)
    small.llm.name = "renamed-llm"
    small.llm.save()
    everything(watch)
    Run.objects.get(pk=small.dense.pk).delete()
    everything(watch)
    Judge.objects.get(pk=small.human.pk).delete()
    everything(watch)


def test_deleting_a_topic_moves_the_data_version_and_no_other_topic(small):
    watch = Watch(small.collection)
    small.other_topic.delete()
    assert watch.moved() == (True, False, set())


def test_bump_rows_and_the_admin_name_the_rows_topics(small, rf):
    watch = Watch(small.collection)
    data_version.bump_rows(Judgment.objects.filter(judge=small.llm))
    topic_only(small, watch)
    admin = DataVersionAdmin(Judgment, site)
    admin.delete_queryset(rf.post("/"), Judgment.objects.filter(judge=small.human))
    topic_only(small, watch)
    admin.delete_model(rf.post("/"), Judgment.objects.filter(judge=small.llm).first())
    topic_only(small, watch)
    DataVersionAdmin(Passage, site).delete_model(rf.post("/"), small.passages[5])
    everything(watch)


def test_bump_topics_moves_those_topics_and_their_collections(small):
    other = make_collection("other")
    make_topic(other, "t")
    watch, elsewhere = Watch(small.collection), Watch(other)
    data_version.bump_topics([small.other_topic.pk])
    topic_only(small, watch, small.other_topic)
    assert elsewhere.moved() == (False, False, set())


@pytest.mark.django_db(transaction=True)
def test_an_importers_store_moves_the_epoch(small):
    watch = Watch(small.collection)
    with transaction.atomic():
        CollectionStore(small.collection)
    everything(watch)


def run_job(small, store) -> list[tuple[bool, bool, set[int]]]:
    """Run a job of three batches; what moved before each batch and after the last."""
    job = Job.objects.create(kind="test-judging", collection=small.collection)
    watch = Watch(small.collection)
    seen = []

    def process(batch):
        seen.append(watch.moved())
        return store(batch)

    run_batches(job, [[0], [1], [2]], process)
    seen.append(watch.moved())
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED
    return seen


def test_the_runner_bumps_the_topics_each_batch_named(small):
    topics = [small.topic, small.other_topic, small.other_topic]

    def store(batch):
        # A judging job's store: a bulk write (no signal) that names its topics.
        topic = topics[batch[0]]
        Judgment.objects.filter(topic=topic).update(rating=5)
        data_version.bump_topics([topic.pk])
        return {"stored": 1}

    seen = run_job(small, store)
    assert seen[0][:2] == (True, True)  # the run's start: a killed worker's batch named nothing
    assert seen[1:] == [
        (True, False, {small.topic.pk}),
        (True, False, {small.other_topic.pk}),
        (True, False, {small.other_topic.pk}),
    ]


def test_the_runner_bumps_everything_after_a_batch_that_named_nothing(small):
    def store(batch):
        Judgment.objects.filter(topic=small.topic).update(rating=batch[0])  # no bump of its own
        return {"stored": 1}

    seen = run_job(small, store)
    assert all(version and epoch for version, epoch, _ in seen)


def test_the_migration_gives_every_collection_its_own_epoch(small):
    migration = importlib.import_module("crux_app.migrations.0017_unit_versions")
    other = make_collection("other")
    Collection.objects.update(unit_epoch=7)  # as AddField leaves them
    migration.give_each_collection_its_own_epoch(apps, None)
    epochs = {snapshot(c).epoch for c in (small.collection, other)}
    assert len(epochs) == 2 and 7 not in epochs


def test_an_annotators_submit_and_undo_move_the_items_topic_only():
    hand = make_hand_collection()
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, collection=hand.collection, annotators=[anna])
    watch = Watch(hand.collection)
    assignment = queue.next_item(campaign, anna).assignment
    topic = Topic.objects.get(pk=assignment.item.topic_id)
    answer = {"rating": 5, "rationale": "Passage", "rationale_start": 0, "rationale_end": 7}
    submit(assignment, answer, 1000)
    assert watch.moved() == (True, False, {topic.pk})
    undo(assignment)
    assert watch.moved() == (True, False, {topic.pk})
