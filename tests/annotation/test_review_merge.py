"""A merged adjudicated judge: the decisions of several review campaigns on one collection and
task written as one judge's judgments (the later decision wins a conflict)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotation.models.review import ANNOTATOR_MACHINE
from annotation.review.campaigns import create_review_campaign
from annotation.review.decisions import decide
from annotation.review.merge import MergeError, merge_adjudicated
from annotation.review.selection import QueueChoice
from annotation.task_types.names import ANSWER_EQUIVALENCE
from crux_app.models import Judge, Judgment
from tests.annotation.review_data import disagreement_collection
from tests.crux_app.factories import make_collection, make_passages, make_topic

pytestmark = pytest.mark.django_db


def _merge(*args: str) -> str:
    out = StringIO()
    call_command("merge_adjudicated", "--collection", "rv", *args, stdout=out)
    return out.getvalue()


def _ratings(judge_name: str) -> dict[str, int]:
    rows = Judgment.objects.filter(judge__name=judge_name)
    return {p: r for p, r in rows.values_list("passage__external_id", "rating")}


def test_two_campaigns_merge_into_one_judge_the_later_decision_winning():
    data = disagreement_collection()
    lead = get_user_model().objects.create_user("lead")
    # People disagree on p1, p2, p3; ann and the machine only on p1.
    people = create_review_campaign(data.collection, "People", QueueChoice())
    machine = create_review_campaign(
        data.collection,
        "Ann vs gpt",
        QueueChoice(judges=("user:ann", "gpt"), kind=ANNOTATOR_MACHINE),
    )
    assert [i.key for i in machine.items.all()] == ["t1/0/t1:0#1"]
    start = timezone.now()
    by_key = {i.key: i for i in people.items.all()}
    decide(by_key["t1/0/t1:0#1"], lead, 4, now=start)
    decide(by_key["t1/0/t1:0#2"], lead, 5, note="clear", now=start)
    decide(machine.items.get(), lead, 2, now=start + timedelta(minutes=1))

    out = _merge("--name", "Reference")
    name = "adjudicated:merged:reference"
    assert out.startswith(f"{name}: 2 label(s) from ann-vs-gpt, people; 1 item(s)")
    assert Judge.objects.get(name=name).kind == Judge.Kind.ADJUDICATED
    assert _ratings(name) == {"t1:0#1": 2, "t1:0#2": 5}
    assert Judgment.objects.get(judge__name=name, rating=5).rationale == "clear"

    # Merged again from one campaign: rebuilt, not added to.
    out = _merge("--name", "Reference", "--campaigns", people.slug)
    assert "2 label(s) from people; 0 item(s)" in out
    assert _ratings(name) == {"t1:0#1": 4, "t1:0#2": 5}


def test_merge_refuses_what_it_cannot_write():
    data = disagreement_collection()
    create_review_campaign(data.collection, "People", QueueChoice())
    with pytest.raises(CommandError, match="named ghost"):
        _merge("--name", "R", "--campaigns", "people", "ghost")
    with pytest.raises(CommandError, match="no review campaign of report_coverage"):
        _merge("--name", "R", "--task", "report_coverage")
    with pytest.raises(CommandError, match="invalid choice"):
        _merge("--name", "R", "--task", ANSWER_EQUIVALENCE)
    with pytest.raises(MergeError, match="answer_equivalence decisions have no judgments"):
        merge_adjudicated(data.collection, ANSWER_EQUIVALENCE, "R")
    Judge.objects.create(name="adjudicated:merged:taken", kind=Judge.Kind.LLM)
    with pytest.raises(CommandError, match="is not an adjudicated judge"):
        _merge("--name", "taken")
    assert not Judgment.objects.filter(judge__name="adjudicated:merged:taken").exists()


def test_a_merge_in_one_collection_keeps_the_judges_labels_in_another():
    """A judge spans collections: re-merging in one rebuilds that collection's labels only."""
    data = disagreement_collection()
    lead = get_user_model().objects.create_user("lead")
    campaign = create_review_campaign(data.collection, "People", QueueChoice())
    decide(campaign.items.order_by("key").first(), lead, 4)
    _merge("--name", "Reference")
    judge = Judge.objects.get(name="adjudicated:merged:reference")
    other = make_collection("elsewhere")
    topic = make_topic(other, "o1", n_subquestions=1)
    (passage,) = make_passages(other, "o1", 1)
    Judgment.objects.create(
        judge=judge, topic=topic, subquestion=topic.subquestions.get(), passage=passage,
        task=Judgment.Task.PASSAGE_RATING, rating=3,
    )  # fmt: skip
    _merge("--name", "Reference")
    assert judge.judgments.filter(topic=topic).count() == 1
    assert judge.judgments.filter(topic__collection=data.collection).count() == 1
