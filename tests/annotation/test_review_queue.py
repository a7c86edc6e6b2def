"""The disagreement queue: the pure picking rules on hand-made labels, and the command."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models.review import (
    ANNOTATOR_MACHINE,
    ANNOTATORS,
    LARGEST_GAP,
    MACHINES,
    RANDOM,
    STRATIFIED,
)
from annotation.review.queue import (
    QueueItem,
    disagreement_queue,
    label_gap,
    option_order,
    sample_queue,
    stratum_sizes,
)
from crux_app.models import Judge
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_topic,
    rate_passages,
)


def test_two_judges_who_agree_are_not_in_the_queue():
    assert disagreement_queue({"i1": {"a": 3, "b": 3}}) == []


def test_one_judge_alone_is_not_in_the_queue():
    assert disagreement_queue({"i1": {"a": 3}, "i2": {}}) == []


def test_three_judges_one_differing_is_in_the_queue_with_its_gap():
    (item,) = disagreement_queue({"i1": {"a": 1, "b": 1, "c": 4}})
    assert item.key == "i1"
    assert item.labels == {"a": 1, "b": 1, "c": 4}
    assert item.gap == 3.0  # 4 - 1


def test_gap_of_numbers_is_max_minus_min_and_of_categories_distinct_minus_one():
    assert label_gap([0, 5, 2]) == 5.0
    assert label_gap(["A", "B", "A"]) == 1.0
    assert label_gap(["A", "B", "C"]) == 2.0
    assert label_gap([]) == 0.0


def test_judges_limit_the_labels_compared():
    labels = {"i1": {"a": 1, "b": 1, "c": 4}}
    assert disagreement_queue(labels, judges=["a", "b"]) == []
    (item,) = disagreement_queue(labels, judges=["a", "c"])
    assert item.labels == {"a": 1, "c": 4}


def test_unlabelled_none_is_no_label():
    assert disagreement_queue({"i1": {"a": 1, "b": None}}) == []


def test_kinds_of_disagreement():
    labels = {
        "people": {"ann": 1, "bob": 2, "gpt": 1},
        "person_vs_machine": {"ann": 1, "bob": 1, "gpt": 3},
        "machines": {"ann": 2, "gpt": 1, "llama": 2},
    }
    machines = ["gpt", "llama"]

    def keys(kind):
        return [i.key for i in disagreement_queue(labels, kind=kind, machines=machines)]

    assert keys(ANNOTATORS) == ["people"]
    assert keys(ANNOTATOR_MACHINE) == ["machines", "people", "person_vs_machine"]
    assert keys(MACHINES) == ["machines"]


def test_topic_and_gap_filters():
    labels = {"t1/a": {"x": 0, "y": 1}, "t1/b": {"x": 0, "y": 3}, "t2/a": {"x": 0, "y": 4}}
    topics = {"t1/a": "t1", "t1/b": "t1", "t2/a": "t2"}
    got = disagreement_queue(labels, topics=topics, topic_filter=["t1"])
    assert [i.key for i in got] == ["t1/a", "t1/b"]
    got = disagreement_queue(labels, topics=topics, min_gap=2)
    assert [i.key for i in got] == ["t1/b", "t2/a"]


def _items(gaps_by_topic: dict[str, list[float]]) -> list[QueueItem]:
    return [
        QueueItem(f"{t}/{i}", {"x": 0, "y": int(g)}, t, g)
        for t, gaps in gaps_by_topic.items()
        for i, g in enumerate(gaps)
    ]


def test_largest_gaps_first():
    items = _items({"t1": [1, 5, 2], "t2": [4, 5]})
    got = sample_queue(items, LARGEST_GAP, 3)
    assert [(i.key, i.gap) for i in got] == [("t1/1", 5), ("t2/1", 5), ("t2/0", 4)]
    assert {i.inclusion for i in got} == {1.0}


def test_random_sample_is_seeded_with_inclusion_n_over_total():
    items = _items({"t1": [1, 1, 1, 1], "t2": [1, 1, 1, 1]})
    first = sample_queue(items, RANDOM, 2, seed=7)
    assert [i.key for i in first] == [i.key for i in sample_queue(items, RANDOM, 2, seed=7)]
    assert len(first) == 2
    assert {i.inclusion for i in first} == {0.25}  # 2 of 8


def test_stratified_sample_shares_places_between_topics():
    # 6 items in t1, 2 in t2; 4 places: 2 per topic, so t1's are 2/6 and t2's 2/2.
    items = _items({"t1": [1] * 6, "t2": [1] * 2})
    got = sample_queue(items, STRATIFIED, 4, seed=1)
    by_topic = {t: [i for i in got if i.topic == t] for t in ("t1", "t2")}
    assert len(by_topic["t1"]) == 2 and len(by_topic["t2"]) == 2
    assert [i.inclusion for i in by_topic["t1"]] == [pytest.approx(1 / 3)] * 2
    assert {i.inclusion for i in by_topic["t2"]} == {1.0}


def test_stratum_sizes_pass_spare_places_on():
    # 5 places over strata of 1, 3 and 10 items: 1 + 2 + 2 (the spare place of "a" goes on).
    assert stratum_sizes({"a": 1, "b": 3, "c": 10}, 5) == {"a": 1, "b": 2, "c": 2}
    assert stratum_sizes({"a": 1, "b": 3}, 99) == {"a": 1, "b": 3}
    # What does not divide evenly goes to the first stratum by name.
    assert stratum_sizes({"b": 5, "a": 5}, 3) == {"a": 2, "b": 1}


def test_sample_larger_than_queue_takes_all():
    items = _items({"t1": [1, 2]})
    assert [i.key for i in sample_queue(items, RANDOM, 10)] == ["t1/0", "t1/1"]


def test_option_order_is_a_seeded_per_item_permutation():
    assert sorted(option_order(3, 5, "k")) == [0, 1, 2]
    assert option_order(3, 5, "k") == option_order(3, 5, "k")
    orders = {tuple(option_order(3, 5, f"k{i}")) for i in range(30)}
    assert len(orders) > 1  # not the same order for every item


def _queue(*args: str) -> dict:
    out = StringIO()
    call_command("review_queue", *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_command_prints_the_human_disagreements_as_json():
    collection = make_collection("rq")
    topic = make_topic(collection, "t1", n_subquestions=1)
    passages = make_passages(collection, "t1", 3)
    ann = make_judge("user:ann", kind=Judge.Kind.HUMAN)
    bob = make_judge("user:bob", kind=Judge.Kind.HUMAN)
    gpt = make_judge("gpt")
    rate_passages(ann, topic, passages, lambda q, p: 2)
    rate_passages(bob, topic, passages, lambda q, p: 2 if p == 0 else p + 2)
    rate_passages(gpt, topic, passages, lambda q, p: 0)

    got = _queue("--collection", "rq")
    assert got == {
        "n_items": 2,
        "items": [
            {"key": "t1/0/t1:0#1", "labels": {"user:ann": 2, "user:bob": 3}},
            {"key": "t1/0/t1:0#2", "labels": {"user:ann": 2, "user:bob": 4}},
        ],
    }
    got = _queue("--collection", "rq", "--judges", "user:ann", "gpt")
    assert got["n_items"] == 3
    assert got["items"][0]["labels"] == {"gpt": 0, "user:ann": 2}
    got = _queue("--collection", "rq", "--sampling", "largest_gap", "--sample", "1")
    assert got["items"][0]["key"] == "t1/0/t1:0#2"


@pytest.mark.django_db
def test_command_refuses_unknown_collection_and_judges():
    with pytest.raises(CommandError, match="does not exist"):
        _queue("--collection", "nope")
    make_collection("rq2")
    with pytest.raises(CommandError, match="no labels of passage_rating by ghost"):
        _queue("--collection", "rq2", "--judges", "ghost")


@pytest.mark.django_db
def test_command_text_format_and_kind_filter():
    collection = make_collection("rq3")
    topic = make_topic(collection, "t1", n_subquestions=1)
    passages = make_passages(collection, "t1", 2)
    rate_passages(make_judge("user:ann", kind=Judge.Kind.HUMAN), topic, passages, lambda q, p: 1)
    rate_passages(make_judge("gpt"), topic, passages, lambda q, p: p + 1)
    rate_passages(make_judge("llama"), topic, passages, lambda q, p: 3)
    # Two machines disagree on both passages; ann and gpt agree on the first one only.
    assert _queue("--collection", "rq3", "--kind", "machines")["n_items"] == 2
    got = _queue("--collection", "rq3", "--kind", "annotator_machine", "--topic", "t1")
    assert got["n_items"] == 2
    assert _queue("--collection", "rq3", "--kind", "annotator_machine", "--topic", "t9") == {
        "n_items": 0,
        "items": [],
    }
    out = StringIO()
    call_command("review_queue", "--collection", "rq3", "--kind", "machines", "--format",
                 "text", stdout=out)  # fmt: skip
    assert out.getvalue().splitlines()[0] == "2 item(s) in the queue"
    assert "gpt=1" in out.getvalue() and "llama=3" in out.getvalue()
