"""Nuggets <-> CRUX sub-questions: both directions, the links, and CRUX's passage ratings read
as nugget support through them."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crux_app.models import Collection, Judge, Judgment, Passage, SubQuestion, Topic
from evaluation.nuggets.losses import LossSettings, nugget_losses
from evaluation.nuggets.models import Nugget, NuggetAssignment
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = pytest.mark.django_db


def test_subquestions_from_nuggets_append_and_link(tmp_path):
    load_all(tmp_path)
    t1 = Topic.objects.get(external_id="t1")
    SubQuestion.objects.create(topic=t1, position=0, text="an existing question")

    call_command("subquestions_from_nuggets", "--collection", NAME, stdout=StringIO())

    assert list(SubQuestion.objects.filter(topic=t1).values_list("position", "text")) == [
        (0, "an existing question"),
        (1, "The moon's gravity pulls the oceans"),
        (2, "The sun also raises tides"),
        (3, "Spring tides follow new and full moons"),
    ]
    assert all(n.subquestion.text == n.text for n in Nugget.objects.all())
    call_command("subquestions_from_nuggets", "--collection", NAME, stdout=StringIO())
    assert SubQuestion.objects.count() == 5  # linked nuggets are not converted twice


def test_nuggets_from_subquestions_keep_unchanged_nuggets_and_their_labels(tmp_path):
    load_all(tmp_path)
    t1 = Topic.objects.get(external_id="t1")
    for position, text in enumerate(
        ["The moon's gravity pulls the oceans", None, "Why are there two tides a day?"]
    ):
        SubQuestion.objects.create(
            topic=t1, position=position, text=text or "", is_placeholder=text is None
        )

    call_command(
        "nuggets_from_subquestions", "--collection", NAME, "--importance", "okay",
        stdout=StringIO(),
    )  # fmt: skip

    nuggets = list(Nugget.objects.filter(topic=t1).order_by("position"))
    assert [(n.text, n.importance) for n in nuggets] == [
        ("The moon's gravity pulls the oceans", "vital"),  # unchanged: its importance kept
        ("Why are there two tides a day?", "okay"),
    ]
    assert nuggets[0].assignments.count() == 2 and nuggets[1].assignments.count() == 0
    assert [n.subquestion.position for n in nuggets] == [0, 2]
    assert Nugget.objects.filter(topic__external_id="t2").count() == 1  # no sub-questions
    assert NuggetAssignment.objects.filter(nugget__topic=t1).count() == 2
    with pytest.raises(CommandError):
        call_command("nuggets_from_subquestions", "--collection", "missing")


def test_crux_passage_ratings_of_a_linked_subquestion_count_as_support(tmp_path):
    load_all(tmp_path)
    call_command("subquestions_from_nuggets", "--collection", NAME, stdout=StringIO())
    collection = Collection.objects.get(name=NAME)
    crux = Judge.objects.create(name="crux-llm", kind="llm", model_id="m", prompt_version="p")
    sun = Nugget.objects.get(topic__external_id="t1", position=1)
    Judgment.objects.create(
        judge=crux,
        topic=sun.topic,
        subquestion=sun.subquestion,
        passage=Passage.objects.get(external_id="d3"),
        task=Judgment.Task.PASSAGE_RATING,
        rating=4,
    )

    rows = nugget_losses(collection, LossSettings(Judge.objects.get(name="gpt"), crux))

    by_key = {(r.run, r.position): r for r in rows}
    assert by_key[("runA", 1)].category == "delivered"  # stated, and cited d3 supports it
    assert by_key[("runB", 1)].category == "delivered"
    assert by_key[("runB", 0)].category == "retrieval miss"
