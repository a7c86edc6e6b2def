"""``manage.py aggregate_labels``: people's labels of each task type combined by a crowd model
into the judge ``aggregated:<name>``, stored where the task's labels live (judgments, campaign
answers' review items) and read back by the review queue like any judge's."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.crowd.aggregation import METHODS
from annotation.labels.collection import collection_labels
from annotation.models import AggregatedLabel, AggregationRun
from annotation.queue import queue
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
)
from annotation.workspace.submission import submit
from crux_app.judge_kinds import judge_kind_label
from crux_app.models import Judge, Judgment

from .campaign_data import make_annotator, make_campaign
from .review_data import disagreement_collection

pytestmark = pytest.mark.django_db


def aggregate(*args: str) -> dict:
    out = StringIO()
    call_command("aggregate_labels", *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def test_passage_ratings_become_an_aggregated_judge_with_judgments():
    data = disagreement_collection("rv")
    # The people only (ann and bob): gpt is a machine and stays out unless named.
    got = aggregate("--collection", "rv", "--task", PASSAGE_RATING, "--method", "majority",
                    "--name", "mv")  # fmt: skip
    assert list(got) == ["method", "judge", "n_items", "items", "workers"]
    assert (got["method"], got["judge"], got["n_items"]) == ("majority", "aggregated:mv", 4)
    first = got["items"][0]
    assert first == {"key": "t1/0/t1:0#0", "topic": "t1", "label": 2, "confidence": 1.0,
                     "n_labels": 2}  # fmt: skip
    # ann 2 / bob 4 on p1: a tie, broken toward the smaller label, with confidence 1/2.
    assert got["items"][1]["label"] == 2 and got["items"][1]["confidence"] == 0.5
    assert [w["judge"] for w in got["workers"]] == ["user:ann", "user:bob"]
    judge = Judge.objects.get(name="aggregated:mv")
    assert judge.kind == Judge.Kind.AGGREGATED and judge_kind_label(judge) == "aggregated"
    ratings = dict(judge.judgments.values_list("passage__external_id", "rating"))
    assert ratings == {"t1:0#0": 2, "t1:0#1": 2, "t1:0#2": 1, "t1:0#3": 0}
    assert set(judge.judgments.values_list("task", flat=True)) == {PASSAGE_RATING}
    # The review queue reads it as a judge; a rerun replaces the labels.
    assert collection_labels(data.collection).labels["t1/0/t1:0#0"]["aggregated:mv"] == 2
    aggregate("--collection", "rv", "--task", PASSAGE_RATING, "--method", "dawid_skene",
              "--name", "mv")  # fmt: skip
    assert judge.judgments.count() == 4 and AggregationRun.objects.count() == 1
    assert AggregationRun.objects.get().method == "dawid_skene"


def test_machine_judges_join_the_model_when_named():
    disagreement_collection("rv")
    got = aggregate("--collection", "rv", "--task", PASSAGE_RATING, "--method", "majority",
                    "--judges", "user:ann", "user:bob", "gpt", "--name", "with-gpt")  # fmt: skip
    # p1: ann 2, bob 4, gpt 4 -> 4; p3: ann 3, bob 0, gpt 3 -> 3.
    labels = {i["key"]: i["label"] for i in got["items"]}
    assert labels["t1/0/t1:0#1"] == 4 and labels["t1/0/t1:0#3"] == 3
    assert AggregationRun.objects.get().machines == ["gpt"]
    text = StringIO()
    call_command("aggregate_labels", "--collection", "rv", "--task", PASSAGE_RATING,
                 "--method", "majority", "--judges", "user:ann", "gpt", stdout=text)  # fmt: skip
    assert "machine judges in the model: gpt" in text.getvalue()
    assert "crowd-kit MajorityVote" in text.getvalue()


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_runs_through_the_command(method):
    disagreement_collection("rv")
    got = aggregate("--collection", "rv", "--task", PASSAGE_RATING, "--method", method,
                    "--judges", "user:ann", "user:bob", "gpt", "--seed", "7")  # fmt: skip
    assert got["judge"] == f"aggregated:rv-passage_rating-{method}"
    assert got["n_items"] == 4 and len(got["workers"]) == 3
    assert all(0 <= w["skill"] <= 1 for w in got["workers"])
    again = aggregate("--collection", "rv", "--task", PASSAGE_RATING, "--method", method,
                      "--judges", "user:ann", "user:bob", "gpt", "--seed", "7")  # fmt: skip
    assert again == got  # deterministic for a fixed seed


def test_bad_choices_are_named():
    disagreement_collection("rv")
    base = ("aggregate_labels", "--task", PASSAGE_RATING, "--method", "majority")
    with pytest.raises(CommandError, match="collection 'nope' does not exist"):
        call_command(*base, "--collection", "nope")
    with pytest.raises(CommandError, match="no labels of passage_rating by carl"):
        call_command(*base, "--collection", "rv", "--judges", "carl")
    with pytest.raises(CommandError, match="name: use letters"):
        call_command(*base, "--collection", "rv", "--name", "a b")
    with pytest.raises(CommandError, match="campaign: no campaign 'x'"):
        call_command(*base, "--collection", "rv", "--campaign", "x")
    Judge.objects.create(name="aggregated:taken", kind=Judge.Kind.LLM)
    with pytest.raises(CommandError, match="exists and is not aggregated"):
        call_command(*base, "--collection", "rv", "--name", "taken")


def _label(campaign, answers: dict) -> None:
    for user, answer in answers.items():
        while (nxt := queue.next_item(campaign, user)).assignment is not None:
            submit(nxt.assignment, answer(nxt.assignment.item), 3000)


def test_report_coverage_campaign_labels_aggregate_per_subquestion():
    ann, bob, cat = (make_annotator(n) for n in ("ann", "bob", "cat"))
    campaign = make_campaign(REPORT_COVERAGE, annotators=[ann, bob, cat], overlap=3)

    def marks(value):
        return lambda item: {
            "answers": [
                {"position": q["position"], "answerable": value(q["position"])}
                for q in item.payload["questions"]
            ]
        }

    _label(campaign, {ann: marks(lambda p: 1), bob: marks(lambda p: 1), cat: marks(lambda p: 0)})
    got = aggregate("--collection", "reports", "--task", REPORT_COVERAGE, "--method",
                    "dawid_skene", "--campaign", campaign.slug, "--name", "cov")  # fmt: skip
    assert got["n_items"] > 0 and {i["label"] for i in got["items"]} == {1}
    assert {i["run"] for i in got["items"]} == {"bm25", "dense"}
    skills = {w["judge"]: w["skill"] for w in got["workers"]}
    assert skills["user:cat"] < skills["user:ann"]
    judge = Judge.objects.get(name="aggregated:cov")
    assert judge.judgments.filter(task=REPORT_COVERAGE).count() == got["n_items"]
    assert set(Judgment.objects.filter(judge=judge).values_list("rating", flat=True)) == {1}


@pytest.mark.parametrize(
    ("task", "answers", "expected"),
    [
        (ANSWER_EQUIVALENCE, ({"equivalent": True}, {"equivalent": False}), 1),
        (FAILURE_CATEGORY, ({"category": "C"}, {"category": "A"}), "C"),
    ],
)
def test_answer_tasks_keep_their_labels_for_the_review_queue(task, answers, expected):
    people = [make_annotator(n) for n in ("ann", "bob", "cat")]
    campaign = make_campaign(task, annotators=people, overlap=3)
    chosen = [answers[0], answers[0], answers[1]]
    _label(campaign, {p: (lambda item, a=a: a) for p, a in zip(people, chosen, strict=True)})
    got = aggregate("--collection", campaign.collection.name, "--task", task, "--method",
                    "one_coin_dawid_skene", "--name", "ans")  # fmt: skip
    assert got["n_items"] > 0 and {i["label"] for i in got["items"]} == {expected}
    assert all(i["run"] == "rag:bm25@2" for i in got["items"])
    assert AggregatedLabel.objects.filter(run__judge__name="aggregated:ans").count() == len(
        got["items"]
    )
    found = collection_labels(campaign.collection, task)
    assert found.kinds["aggregated:ans"] == Judge.Kind.AGGREGATED
    key = got["items"][0]["key"]
    assert found.labels[key]["aggregated:ans"] == expected
